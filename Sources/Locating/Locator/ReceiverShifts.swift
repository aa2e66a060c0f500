/// Each receiver's own shift from its model, dB, learnt from how far its levels sat from the fits.
///
/// A receiver without a two-point calibration reads its tag through a model that is not its own:
/// the default −59 dBm at 1 m, or a 1 m level measured at one spot, which a fade there can put
/// 10 dB off. The common shift cannot take that out, as it moves every receiver alike; one receiver
/// reading 8 dB low looks 3 times as far as it is, every fix. Over a run of fixes at many places
/// its misses average to its own shift, while the tag's place does not: so each receiver's mean
/// miss is learnt (over its last `offsetMemory` fixes, as the common shift is), and applied in
/// proportion to what it rests on, n / (n + `fixes`), where `fixes` is how many fixes' misses weigh
/// as much as the calibration's own word.
struct ReceiverShifts: Sendable {
    private var shifts: [(mean: Double, fixes: Int)]
    /// Per receiver: nil when its calibration is not second-guessed (a two-point one, measured on
    /// site, is the receiver's own model), else its `fixes`.
    private let weights: [Double?]
    private let memory: Int

    init(receivers: [Receiver], configuration: LocatorConfiguration) {
        shifts = Array(repeating: (0, 0), count: receivers.count)
        weights = receivers.map { configuration.shiftFixes(for: $0.calibration) }
        memory = configuration.offsetMemory
    }

    /// What receiver `index`'s levels are taken to sit above its model, dB.
    func shift(_ index: Int) -> Double {
        guard let weight = weights[index] else { return 0 }
        let (mean, fixes) = shifts[index]
        return mean * Double(fixes) / (Double(fixes) + weight)
    }

    /// Learns from one fix: receiver `index`'s level missed the fit by `miss` dB with `shift(index)` applied.
    mutating func learn(_ index: Int, miss: Double) {
        guard weights[index] != nil, miss.isFinite else { return }
        let unshifted = miss + shift(index)
        shifts[index].fixes += 1
        shifts[index].mean += (unshifted - shifts[index].mean) / Double(min(shifts[index].fixes, memory))
    }
}
