// Tool.swift — what every subcommand of `openrealm` shares: its errors and exit codes, argument
// parsing, keys (key file, OPENREALM_KEY, a prompt without echo), opening a file.

import Foundation
import OpenRealm

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A failure of a subcommand: a usage error (exit 2, the command's usage follows) or an error
/// (exit 1).
struct ToolError: Error, CustomStringConvertible {
    let description: String
    let isUsage: Bool

    static func usage(_ text: String) -> ToolError { ToolError(description: text, isUsage: true) }
    static func failure(_ text: String) -> ToolError { ToolError(description: text, isUsage: false) }
}

/// A subcommand: its name, one line for the overview, its help, and what it does.
struct Subcommand: Sendable {
    let name: String
    let summary: String
    let help: String
    let run: @Sendable ([String]) throws -> Void
}

/// Parsed arguments: positionals in order, options with a value, flags.
struct Arguments {
    var positionals: [String] = []
    var values: [String: String] = [:]
    var flags: Set<String> = []

    /// Splits `arguments`: `valueOptions` take the next argument (or `--name=value`),
    /// `flagOptions` none; anything else starting with `-` is a usage error. After `--`,
    /// everything is positional.
    init(_ arguments: [String], valueOptions: Set<String> = [], flagOptions: Set<String> = []) throws {
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            if valueOptions.contains(name) {
                if let inline {
                    values[name] = inline
                } else {
                    guard index < arguments.count else { throw ToolError.usage("option \(name) needs a value") }
                    values[name] = arguments[index]
                    index += 1
                }
            } else if flagOptions.contains(name), inline == nil {
                flags.insert(name)
            } else if Int(argument) != nil || Double(argument) != nil {
                positionals.append(argument)  // a negative number is a value, not an option
            } else {
                throw ToolError.usage("unknown option '\(argument)'")
            }
        }
    }

    /// Exactly `count` positionals, else a usage error.
    func expect(_ count: Int, _ what: String) throws -> [String] {
        guard positionals.count == count else {
            throw ToolError.usage(positionals.count < count ? "missing \(what)" : "unexpected argument '\(positionals[count])'")
        }
        return positionals
    }
}

/// The options every command that opens a file takes.
let keyOptions: Set<String> = ["--key-file"]

let keyHelp = """
    keys of encrypted files (never on the command line):
      --key-file PATH   a file holding the 64-byte key, raw or as 128 hexadecimal digits
      OPENREALM_KEY     the environment variable, 128 hexadecimal digits
      otherwise, on a terminal, the key is asked for without echo
    """

/// What the reading subcommands say about a read-only directory.
let snapshotHelp = """
    In a directory where its lock file cannot be created (a read-only directory or file system),
    the file is read as an immutable snapshot, which a note on standard error says: nothing may
    write it meanwhile.
    """

/// Reads a key: 64 raw bytes, or 128 hexadecimal digits (surrounding whitespace ignored).
func parseKey(_ bytes: [UInt8], source: String) throws -> [UInt8] {
    if bytes.count == 64 { return bytes }
    let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    guard text.utf8.count == 128, let key = hexBytes(text) else {
        // 128 characters that are not all hexadecimal digits: say so, not only the count.
        let found = text.utf8.count == 128 ? "128 characters, not all hexadecimal digits" : "\(bytes.count) bytes"
        throw ToolError.failure("\(source): a key is 64 bytes, or 128 hexadecimal digits (found \(found))")
    }
    return key
}

func hexBytes(_ text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    var index = 0
    while index < digits.count {
        guard let high = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
        bytes.append(high)
        index += 2
    }
    return bytes
}

/// The key the user gave: `--key-file`, else OPENREALM_KEY, else nil.
func givenKey(_ arguments: Arguments, option: String = "--key-file", environment: String? = "OPENREALM_KEY") throws -> [UInt8]? {
    if let path = arguments.values[option] {
        // open(2) gives the reason a read fails (FileManager's errno is not reliable); a
        // directory opens, so it is named apart.
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw ToolError.failure("cannot read the key file '\(path)': \(String(cString: strerror(errno)))")
        }
        var info = stat()
        let isDirectory = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
        close(fd)
        guard !isDirectory else { throw ToolError.failure("cannot read the key file '\(path)': it is a directory") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ToolError.failure("cannot read the key file '\(path)'")
        }
        return try parseKey([UInt8](data), source: "key file '\(path)'")
    }
    if let environment, let hex = ProcessInfo.processInfo.environment[environment] {
        return try parseKey(Array(hex.utf8), source: environment)
    }
    return nil
}

/// Asks for a key on the terminal without echo; nil when there is no terminal.
func promptKey(for path: String) throws -> [UInt8]? {
    let tty = open("/dev/tty", O_RDWR)
    guard tty >= 0 else { return nil }
    defer { close(tty) }
    guard isatty(tty) == 1 else { return nil }
    var saved = termios()
    guard tcgetattr(tty, &saved) == 0 else { return nil }
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO)
    // Echo off first, then the prompt: what is typed after the prompt is never shown.
    guard tcsetattr(tty, TCSAFLUSH, &quiet) == 0 else { return nil }
    let prompt = "key of '\(path)' (128 hexadecimal digits): "
    _ = prompt.withCString { write(tty, $0, strlen($0)) }
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while read(tty, &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
    tcsetattr(tty, TCSAFLUSH, &saved)
    _ = write(tty, "\n", 1)
    return try parseKey(line, source: "the key typed")
}

/// Opens `path` read-only or read-write with the user's key; without one, an encrypted file
/// (it fails to open with `.invalidDatabase`) asks for the key on a terminal.
///
/// Read-only, a file whose lock file cannot be created (a read-only directory or file system)
/// opens as an immutable snapshot, without a lock file, and a note on standard error says so.
func openFile(_ path: String, _ arguments: Arguments, readOnly: Bool, create: Bool = false) throws -> (DynamicFile, key: [UInt8]?) {
    if !readOnly && !create { try refuseEmptyFile(path) }
    let key = try givenKey(arguments)
    var failure: EngineError
    do {
        return (try openHandle(path, key: key, readOnly: readOnly, create: create), key)
    } catch {
        failure = error
    }
    // Only a file the engine says is encrypted (not a damaged one) asks for a key.
    guard failure.code == .invalidDatabase, key == nil, failure.message.contains("no encryption key was given") else { throw failure }
    guard let typed = try promptKey(for: path) else {
        throw ToolError.failure("\(failure) (give its key with --key-file PATH or OPENREALM_KEY)")
    }
    return (try openHandle(path, key: typed, readOnly: readOnly, create: create), typed)
}

/// Refuses an empty file before a command that rewrites a database (compact, encrypt, decrypt,
/// rekey) opens it read-write: the engine would make it a new, empty database, changing a file
/// the command then refuses (or "compacting" what was never one).
func refuseEmptyFile(_ path: String) throws {
    var status = stat()
    if stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size == 0 {
        throw ToolError.failure("invalid database: '\(path)' is empty: nothing was changed")
    }
}

/// Opens `path`; read-only, falls back to an immutable snapshot when the lock file cannot be
/// created or opened for lack of permission (the engine names `<path>.lock` then).
private func openHandle(_ path: String, key: [UInt8]?, readOnly: Bool, create: Bool) throws(EngineError) -> DynamicFile {
    do {
        return try DynamicFile(path: path, encryptionKey: key, readOnly: readOnly, create: create)
    } catch {
        guard readOnly, error.code == .filePermissionDenied, error.message.contains("lock file failed for '\(path).lock'") else {
            throw error
        }
        let file = try DynamicFile(path: path, encryptionKey: key, readOnly: true, immutable: true)
        printError("openrealm: note: no lock file can be created beside '\(path)' (\(error.message.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "permission denied")): "
            + "reading it as an immutable snapshot; nothing may write it meanwhile")
        return file
    }
}

/// Writes `text` and a newline to standard error.
func printError(_ text: String, newline: Bool = true) {
    var bytes = Array(text.utf8)
    if newline && bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        if written <= 0 { return }
        offset += written
    }
}

/// Standard output, buffered in large writes (exports and queries print much).
/// Standard output through a buffer of 1 MB, written as bytes (exports write millions of
/// values). A failed write (a full disk) is an error, not a short output.
final class Output {
    private static let capacity = 1 << 20
    private let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: Output.capacity)
    @exclusivity(unchecked) private var count = 0

    deinit { buffer.deallocate() }

    func append(_ text: String) throws {
        var text = text
        try text.withUTF8 { try append(UnsafeRawBufferPointer($0)) }
    }

    func line(_ text: String) throws { try append(text + "\n") }

    @inline(__always) func append(_ bytes: UnsafeRawBufferPointer) throws {
        if count + bytes.count > Output.capacity {
            try flush()
            if bytes.count > Output.capacity { return try writeOut(bytes) }
        }
        if bytes.count <= 16 {
            // Keys, numbers and short strings: a loop beats a call of memmove.
            for index in 0..<bytes.count { buffer[count + index] = bytes[index] }
        } else if let base = bytes.baseAddress {
            (buffer + count).update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        }
        count += bytes.count
    }

    func append(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try append($0) } }

    @inline(__always) func append(byte: UInt8) throws {
        if count == Output.capacity { try flush() }
        buffer[count] = byte
        count += 1
    }

    func append(static text: StaticString) throws { try append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }

    /// A number in decimal.
    @inline(__always) func appendInt(_ value: Int64) throws {
        if count + 20 > Output.capacity { try flush() }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch, filled from the end
        let written = withUnsafeMutableBytes(of: &digits) { scratch -> Int in
            var at = scratch.count
            repeat {
                at -= 1
                scratch[at] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 { at -= 1; scratch[at] = UInt8(ascii: "-") }
            (buffer + count).update(from: scratch.baseAddress!.assumingMemoryBound(to: UInt8.self) + at, count: scratch.count - at)
            return scratch.count - at
        }
        count += written
    }

    /// Appends a JSON value's text (see `JSONValue.write(_:into:)`).
    func appendJSON(_ value: JSONValue) throws {
        var bytes: [UInt8] = []
        JSONValue.write(value, into: &bytes)
        try append(bytes)
    }

    func flush() throws {
        try writeOut(UnsafeRawBufferPointer(start: buffer, count: count))
        count = 0
    }

    private func writeOut(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = write(1, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw ToolError.failure("cannot write the output: \(String(cString: strerror(errno)))") }
            offset += written
        }
    }
}

/// The absolute, resolved form of `path` (or `path` itself if it cannot be resolved).
func absolutePath(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
}

/// Left-aligned columns.
func table(_ rows: [[String]], indent: String = "") -> [String] {
    guard let width = rows.map(\.count).max() else { return [] }
    var widths = [Int](repeating: 0, count: width)
    for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
    return rows.map { row in
        indent + row.enumerated().map { index, cell in
            index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
        }.joined(separator: "  ")
    }
}
