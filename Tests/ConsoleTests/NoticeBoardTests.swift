import Console
import Testing

/// While the range screen is up, a scanner warning goes to its notice line instead of stderr
/// (which would be drawn over): the latest warning is what the owner sees.
struct NoticeBoardTests {
    @Test func keepsTheLatestWarningOrWorse() {
        let board = NoticeBoard()
        let logger = board.logger("test")
        #expect(board.current == nil)
        logger.info("scanning started")
        #expect(board.current == nil)
        logger.warning("Bluetooth adapter not found: waiting for it")
        #expect(board.current == "warning: Bluetooth adapter not found: waiting for it")
        logger.error("bluetoothd left the system bus")
        #expect(board.current == "error: bluetoothd left the system bus")
    }
}
