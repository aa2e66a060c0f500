import ArgumentParser
import Owners

/// A bike choice the owner has to make differently is a usage error: the message, the usage, exit 64.
func usage<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let failure as BikeChoice.Failure {
        throw ValidationError(failure.description)
    }
}

func usage<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let failure as BikeChoice.Failure {
        throw ValidationError(failure.description)
    }
}
