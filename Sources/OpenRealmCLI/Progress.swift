// Progress.swift — progress of long copies on standard error: a bar redrawn in place on a
// terminal (percent, bytes, rate, time left), plain lines otherwise.

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

final class Progress {
    /// What is counted: bytes of a copy, or objects of an export or import.
    enum Unit { case bytes, objects }

    /// Exports and imports of fewer objects than this show no progress.
    static let objectThreshold = 10_000

    private let label: String
    private let unit: Unit
    private let terminal: Bool
    private let start = Date()
    private var lastShown = Date.distantPast
    private var lastPercent = -1
    private var finished = false

    init(_ label: String, unit: Unit = .bytes) {
        self.label = label
        self.unit = unit
        terminal = isatty(2) == 1
    }

    /// Reports `done` of `total` bytes.
    func update(_ done: UInt64, _ total: UInt64) {
        guard !finished else { return }
        let percent = total == 0 ? 100 : Int(done * 100 / total)
        let now = Date()
        let complete = done >= total
        if terminal {
            guard complete || now.timeIntervalSince(lastShown) >= 0.1 else { return }
        } else {
            // Plain lines: at most one per second, and the last one.
            guard complete || (now.timeIntervalSince(lastShown) >= 1 && percent != lastPercent) else { return }
        }
        lastShown = now
        lastPercent = percent
        let elapsed = max(now.timeIntervalSince(start), 0.001)
        let rate = Double(done) / elapsed
        var text = "\(label): \(String(format: "%3d", percent))% \(amount(done)) of \(amount(total)), \(amount(UInt64(rate)))/s"
        if !complete, rate > 0 { text += ", \(duration(Double(total - done) / rate)) left" }
        if complete { text += ", \(duration(elapsed))" }
        if terminal {
            let width = 20
            let filled = percent * width / 100
            let bar = "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] "
            printError("\r\u{1B}[K" + bar + text + (complete ? "\n" : ""), newline: false)
        } else {
            printError(text)
        }
        if complete { finished = true }
    }

    private func amount(_ count: UInt64) -> String {
        if unit == .objects { return "\(count) objects" }
        return count >= 1 << 20 ? String(format: "%.1f MB", Double(count) / Double(1 << 20))
            : count >= 1 << 10 ? String(format: "%.1f KB", Double(count) / Double(1 << 10)) : "\(count) bytes"
    }

    private func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        return whole >= 60 ? "\(whole / 60)m\(String(format: "%02d", whole % 60))s" : seconds < 1 ? String(format: "%.2fs", seconds) : "\(whole)s"
    }
}
