import ConstantColor
@testable import ConstantColorIO
import Foundation
import Testing

@Suite("Atomic output and input protection")
struct TIFFAtomicWriteTests {
    @Test("a successful write leaves only the output, replacing an older file")
    func successLeavesNoTemporary() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("out.tif")
        try Data("old contents".utf8).write(to: URL(fileURLWithPath: path))
        let image = TestImages.image(channels: 3, type: .uint16)
        try TIFFWriter.writeRGB16(image, to: path, iccProfile: nil)
        #expect(try folder.contents() == ["out.tif"])
        #expect(try TIFFReader.read(path: path).image == image)
    }

    @Test("a staged set: nothing replaced until commit, which renames all; discard removes every temporary and keeps the old files")
    func stagedSet() throws {
        let folder = try TemporaryFolder()
        let a = folder.file("a.tif"), b = folder.file("b.json")
        let old = Data("old contents".utf8)
        try old.write(to: URL(fileURLWithPath: a))
        let image = TestImages.image(channels: 3, type: .uint16)
        let discarded = AtomicFileSet()
        try TIFFWriter.writeRGB16(image, to: a, iccProfile: nil, staging: discarded)
        try AtomicFile.write(Data("{}".utf8), to: b, staging: discarded)
        #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == old && !FileManager.default.fileExists(atPath: b))
        let staged = try folder.contents()
        #expect(staged.count == 3, "a.tif and two temporaries: \(staged)")
        discarded.discard()
        #expect(try folder.contents() == ["a.tif"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == old)
        let committed = AtomicFileSet()
        try TIFFWriter.writeRGB16(image, to: a, iccProfile: nil, staging: committed)
        try AtomicFile.write(Data("{}".utf8), to: b, staging: committed)
        #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == old)
        try committed.commit()
        #expect(try folder.contents().sorted() == ["a.tif", "b.json"])
        #expect(try TIFFReader.read(path: a).image == image)
    }

    @Test("paths of one character and folder-less names: temporary names beside them, resolved against the working folder (no trap)")
    func shortPaths() throws {
        #expect(AtomicFile.temporaryPath(for: "a").hasPrefix(".a.tmp-"))
        #expect(AtomicFile.temporaryPath(for: "/a").hasPrefix("/.a.tmp-"))
        #expect(AtomicFile.temporaryPath(for: "d/a").hasPrefix("d/.a.tmp-"))
        let cwd = FileManager.default.currentDirectoryPath
        let resolved = AtomicFile.resolvedPath("a-file-that-is-not-here")
        #expect(resolved.hasSuffix("/a-file-that-is-not-here") && resolved.hasPrefix("/"), "\(resolved) in \(cwd)")
        #expect(!AtomicFile.isProtected("q", protectedPaths: ["z"]))
        #expect(AtomicFile.isProtected("q", protectedPaths: ["./q"]))
    }

    @Test("a failed write leaves no temporary file and keeps the old output")
    func failureLeavesNothing() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("out.tif")
        let old = Data("old contents".utf8)
        try old.write(to: URL(fileURLWithPath: path))
        // Writing a 4-channel image with a 3-channel-only convenience fails before any file...
        #expect(throws: TIFFError.self) {
            try TIFFWriter.writeFloat(TestImages.image(channels: 4, type: .float32), to: path)
        }
        // ...and a failure inside the body (after the temporary file exists) removes it.
        #expect(throws: AtomicFileError.writeFailed(path: path, reason: "boom")) {
            try AtomicFile.withTemporaryPath(for: path, protectedPaths: [], mapError: { $0 }) {
                (temporary: String) throws(AtomicFileError) in
                #expect(FileManager.default.createFile(atPath: temporary, contents: Data("partial".utf8)))
                #expect(FileManager.default.fileExists(atPath: temporary))
                #expect((temporary as NSString).deletingLastPathComponent == folder.path)
                throw .writeFailed(path: path, reason: "boom")
            }
        }
        #expect(try folder.contents() == ["out.tif"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == old)
    }

    @Test("writing into a missing folder fails cleanly")
    func missingFolder() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("no/such/folder/out.tif")
        #expect {
            try TIFFWriter.writeRGB16(TestImages.image(channels: 3, type: .uint16), to: path, iccProfile: nil)
        } throws: { error in
            guard case TIFFError.writeFailed(let p, _) = error else { return false }
            return p == path
        }
        #expect(try folder.contents().isEmpty)
    }

    @Test("writing onto a protected input is refused: same path, relative path, symlink, hard link")
    func protectedInput() throws {
        let folder = try TemporaryFolder()
        let input = folder.file("input.tif")
        let image = TestImages.image(channels: 3, type: .uint16)
        try TIFFWriter.writeRGB16(image, to: input, iccProfile: nil)
        let original = try Data(contentsOf: URL(fileURLWithPath: input))

        let symlink = folder.file("link.tif")
        try FileManager.default.createSymbolicLink(atPath: symlink, withDestinationPath: input)
        let hardLink = folder.file("hard.tif")
        try FileManager.default.linkItem(atPath: input, toPath: hardLink)
        let dotted = folder.path + "/./input.tif"

        let other = TestImages.image(channels: 3, type: .uint16, seed: 99)
        for target in [input, symlink, hardLink, dotted] {
            #expect(throws: TIFFError.outputIsInput(path: target)) {
                try TIFFWriter.writeRGB16(other, to: target, iccProfile: nil, protectedPaths: [input])
            }
        }
        // The protected path itself given through the symlink protects the real file too.
        #expect(throws: TIFFError.outputIsInput(path: input)) {
            try TIFFWriter.writeRGB16(other, to: input, iccProfile: nil, protectedPaths: [symlink])
        }
        // Relative paths (made relative to the current folder without changing it, since the
        // current folder is shared by tests running in parallel).
        let depth = FileManager.default.currentDirectoryPath.split(separator: "/").count
        let relativeInput = String(repeating: "../", count: depth) + input.drop(while: { $0 == "/" })
        #expect(FileManager.default.fileExists(atPath: relativeInput))
        #expect(AtomicFile.isProtected(relativeInput, protectedPaths: [input]))
        #expect(AtomicFile.isProtected(input, protectedPaths: [relativeInput]))
        #expect(!AtomicFile.isProtected(folder.file("output.tif"), protectedPaths: [relativeInput]))
        #expect(throws: TIFFError.outputIsInput(path: relativeInput)) {
            try TIFFWriter.writeRGB16(other, to: relativeInput, iccProfile: nil, protectedPaths: [input])
        }

        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == original)
        #expect(try folder.contents() == ["hard.tif", "input.tif", "link.tif"])

        // A different output next to the input is fine.
        try TIFFWriter.writeRGB16(other, to: folder.file("output.tif"), iccProfile: nil, protectedPaths: [input])
        #expect(try TIFFReader.read(path: folder.file("output.tif")).image == other)
    }

    @Test("an output that is a symbolic link is written through to the file it names (the link stays; `-o /dev/stdout > f` replaced /dev/stdout); `-` and a link to no file are refused in one line")
    func symbolicLinkOutputs() throws {
        let folder = try TemporaryFolder()
        let real = folder.file("real.json"), link = folder.file("link.json")
        try Data("old".utf8).write(to: URL(fileURLWithPath: real))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        try AtomicFile.checkDestination(link)
        try AtomicFile.write(Data("{}".utf8), to: link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == real)
        #expect(try Data(contentsOf: URL(fileURLWithPath: real)) == Data("{}".utf8))
        // Through a staged set as well (the TIFF writer's path).
        let set = AtomicFileSet()
        try AtomicFile.write(Data("[]".utf8), to: link, staging: set)
        try set.commit()
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == real)
        #expect(try Data(contentsOf: URL(fileURLWithPath: real)) == Data("[]".utf8))
        #expect(try folder.contents() == ["link.json", "real.json"])
        // A link to a file that does not exist, and standard output's usual name.
        let dangling = folder.file("dangling.json")
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: folder.file("missing/none.json"))
        for (path, words) in [(dangling, "symbolic link to a file that does not exist"), ("-", "standard output is not supported")] {
            #expect {
                try AtomicFile.write(Data(), to: path)
            } throws: { error in
                guard case .writeFailed(let named, let reason) = error as? AtomicFileError else { return false }
                return named == path && reason.contains(words) && !"\(error)".contains("\n")
            }
            #expect(throws: AtomicFileError.self) { try AtomicFile.checkDestination(path) }
        }
        #expect(try folder.contents() == ["dangling.json", "link.json", "real.json"])
    }

    @Test("AtomicFile.write writes data and keeps a replaced file's permissions")
    func atomicData() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("report.json")
        try AtomicFile.write(Data("{}".utf8), to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("{}".utf8))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        try AtomicFile.write(Data("{\"a\":1}".utf8), to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("{\"a\":1}".utf8))
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o640)
        #expect(throws: AtomicFileError.outputIsInput(path: path)) {
            try AtomicFile.write(Data(), to: path, protectedPaths: [path])
        }
        #expect(try folder.contents() == ["report.json"])
    }

    @Test("a temporary file is listed for removal on an interrupt while it is written, and not after (written or failed)")
    func pendingWhileWritten() throws {
        let dir = try TemporaryFolder()
        var seen: String? = nil
        try AtomicFile.withTemporaryPath(for: dir.file("a.bin"), protectedPaths: [], mapError: { $0 }) { (temporary: String) throws(AtomicFileError) in
            #expect(AtomicFile.Pending.current.contains(temporary))
            seen = temporary
        }
        #expect(seen != nil && !AtomicFile.Pending.current.contains(seen!))
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try AtomicFile.withTemporaryPath(for: dir.file("b.bin"), protectedPaths: [], mapError: { $0 as any Error }) { (temporary: String) throws(any Error) in
                seen = temporary
                throw Stop()
            }
        }
        #expect(!AtomicFile.Pending.current.contains(seen!) && !FileManager.default.fileExists(atPath: seen!))
    }

    @Test("temporary names are hidden, in the same folder, and unique")
    func temporaryNames() {
        let a = AtomicFile.temporaryPath(for: "/tmp/x/out.tif")
        let b = AtomicFile.temporaryPath(for: "/tmp/x/out.tif")
        #expect(a != b)
        #expect(a.hasPrefix("/tmp/x/.out.tif.tmp-\(getpid())-"))
        #expect(AtomicFile.temporaryPath(for: "out.tif").hasPrefix(".out.tif.tmp-"))
    }
}
