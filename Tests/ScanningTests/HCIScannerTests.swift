import Foundation
import HCI
import Scanning
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The raw HCI backend's error paths, for real where this machine allows it.
struct HCIScannerTests {
    /// Whether the kernel offers Bluetooth sockets at all (CI containers usually do not).
    static let kernelHasBluetooth: Bool = {
        let fd = socket(31 /* AF_BLUETOOTH */, Int32(SOCK_RAW.rawValue), 1 /* BTPROTO_HCI */)
        if fd >= 0 { close(fd) }
        return fd >= 0
    }()

    func firstError(_ scanner: HCIScanner) async -> (any Error)? {
        do {
            for try await _ in scanner.advertisementBatches() { return nil }
            return nil
        } catch {
            return error
        }
    }

    @Test(.enabled(if: !kernelHasBluetooth, "this kernel has Bluetooth; the no-kernel-support path cannot be exercised"))
    func openingAnAdapterWithoutKernelBluetoothSaysSo() async throws {
        let error = try #require(await firstError(HCIScanner(adapter: "hci0")) as? HCIError)
        #expect(error == .noKernelSupport)
        #expect(error.description.contains("no Bluetooth support"))
        #expect(error.description.contains("bikebeacon replay"))
    }

    @Test func openingAMissingAdapterFailsCleanly() async throws {
        let error = try #require(await firstError(HCIScanner(adapter: "hci97")) as? HCIError)
        #expect(error == (Self.kernelHasBluetooth ? .noSuchAdapter("hci97") : .noKernelSupport))
    }

    @Test(arguments: ["", "hci", "eth0", "hci0x", "hci-1", "hci99999", "hcı0"])
    func adapterNamesAreValidated(_ name: String) async throws {
        let error = try #require(await firstError(HCIScanner(adapter: name)) as? HCIError)
        #expect(error == .invalidAdapterName(name))
    }

    @Test func permissionErrorsNameTheCapabilitiesAndHowToGrantThem() {
        for code in [EPERM, EACCES] {
            let text = HCIError.from(errno: code, adapter: "hci0", operation: "LE Set Scan Parameters").description
            #expect(text.contains("CAP_NET_RAW"))
            #expect(text.contains("CAP_NET_ADMIN"))
            #expect(text.contains("sudo setcap cap_net_raw,cap_net_admin+eip $(which bikebeacon)"))
            #expect(text.contains("AmbientCapabilities"))
        }
        #expect(HCIError.from(errno: EAFNOSUPPORT, adapter: "hci0", operation: "x") == .noKernelSupport)
        #expect(HCIError.from(errno: ENODEV, adapter: "hci1", operation: "x") == .noSuchAdapter("hci1"))
        #expect(HCIError.from(errno: ENETDOWN, adapter: "hci0", operation: "x").description.contains("hciconfig hci0 up"))
        #expect(HCIError.controllerRejected(adapter: "hci0", command: "LE Set Scan Parameters", status: 0x0C).description.contains("bluetoothd"))
    }

    @Test(.enabled(if: !kernelHasBluetooth, "this kernel has Bluetooth: record might really scan here"))
    func recordCommandReportsTheErrorAndLeavesNoEmptyFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-\(UUID().uuidString).btsnoop").path
        let result = try await run("bikebeacon", ["record", path, "--adapter", "hci0", "--duration", "2"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("bikebeacon record: this kernel has no Bluetooth support"))
        #expect(result.stderr.contains("errors: 1"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
