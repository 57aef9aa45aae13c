import ConstantColor
import CTIFF
import Foundation

/// Reads TIFF files (TIFF 6.0, through libtiff) into planar `Float` images.
public enum TIFFReader {
    /// Checks that `path` is a TIFF this reader decodes (its header and the layout of its first
    /// image: size, samples, compression), without reading its samples, so that a command that
    /// reads many files can refuse a wrong one before it starts; throws what `read` would. Returns
    /// the exposure tags, as `read` would (`DecodedTIFF.exposure`), the image's size and its ICC profile.
    @discardableResult
    public static func checkHeader(path: String, maximumPixelCount: Int = 250_000_000) throws(TIFFError)
        -> (exposure: ExposureFields, width: Int, height: Int, iccProfile: [UInt8]?) {
        let handle = try openForReading(path)
        let layout = try TIFFLayout(handle: handle, path: path, maximumPixelCount: maximumPixelCount)
        let icc = readICCProfile(handle)
        var warnings: [String] = []
        return (readExposure(handle, warnings: &warnings), layout.width, layout.height, icc)
    }

    /// XResolution / YResolution / ResolutionUnit of the current directory (TIFF 6.0 section 8);
    /// nil without both resolutions. Tags present but unusable (one missing, zero, negative, not
    /// finite, an unknown unit) give nil and a note saying so.
    static func readResolution(_ tif: OpaquePointer, note: inout String?) -> TIFFResolution? {
        var x = 0.0, y = 0.0, unitValue: UInt16 = 0
        let hasX = cc_tiff_get_number(tif, UInt32(TIFFTAG_XRESOLUTION), &x) == 1
        let hasY = cc_tiff_get_number(tif, UInt32(TIFFTAG_YRESOLUTION), &y) == 1
        _ = cc_tiff_get_u16_defaulted(tif, UInt32(TIFFTAG_RESOLUTIONUNIT), &unitValue)
        guard hasX || hasY else { return nil }
        let unit = TIFFResolution.Unit(rawValue: Int(unitValue))
        guard hasX, hasY, let unit, TIFFResolution(x: x, y: y, unit: unit).isUsable else {
            note = "its resolution tags (XResolution \(hasX ? "\(x)" : "absent"), YResolution \(hasY ? "\(y)" : "absent"), ResolutionUnit \(unitValue)) do not give a pixel size"
            return nil
        }
        return TIFFResolution(x: x, y: y, unit: unit)
    }

    /// libtiff's mode for reading: `m` turns its memory mapping off. A file mapped into memory that
    /// shrinks while it is read (an upload still being written, a file on a network share changed
    /// on the server) raises SIGBUS on the lost pages: a probe truncating a 12 MP frame 50 ms into
    /// `fuse` got a crash (exit 135), and in `fuse-batch` the end of the whole batch, instead of
    /// one error line. Read through `read`, the short read is an error like any other.
    static let readMode = "rm"

    /// `path` opened by libtiff for reading, or the error that says why it cannot be.
    static func openForReading(_ path: String) throws(TIFFError) -> TIFFHandle {
        try checkReadable(path)
        switch TIFFHandle.open(path, mode: Self.readMode) {
        case .success(let h): return h
        case .failure(let failure):
            // Say what the file is where it is another format (a PNG or JPEG renamed .tif).
            if let kind = FileSignature.kind(ofFileAt: path), kind != "a TIFF image" {
                throw .corrupt(path: path, detail: "it is \(kind), not a TIFF (linear camera RGB TIFFs are read)")
            }
            // libtiff names the file first ("path: message"); the error names it already.
            let message = failure.message.hasPrefix(path + ": ") ? String(failure.message.dropFirst(path.count + 2)) : failure.message
            throw .corrupt(path: path, detail: message)
        }
    }

    /// Reads the first image of the TIFF file at `path`.
    ///
    /// Accepted: 8/16-bit unsigned or 16/32-bit IEEE float samples (16-bit: binary16, as darktable
    /// and RawTherapee export linear float TIFFs); 1 sample (MinIsBlack) or 3 and
    /// more (RGB; a 4th, alpha or other extra sample is dropped, an unassociated alpha's pixels below
    /// full coverage counted in `transparentPixels`); chunky or planar-separate;
    /// strips or tiles; no compression, LZW, Deflate (both tag values) or PackBits, with or
    /// without a horizontal / floating-point predictor. The samples are returned as stored, whatever
    /// the Orientation tag (1…8, reported in `DecodedTIFF.orientation`; another value is refused as
    /// `corrupt`): stored rows are the sensor's rows, which the flash shading map and a rolling
    /// shutter's lines follow, and the caller decides what the orientation means for it.
    ///
    /// Refused before any pixel memory is allocated: images with more than `maximumPixelCount`
    /// pixels (`tooLarge`) or zero size, and unsupported layouts (12-bit, palette, YCbCr/JPEG,
    /// 2 samples, signed integers, 64-bit float, premultiplied alpha, a reduced-resolution
    /// preview as first image, …) with a message naming the layout. A float
    /// file containing NaN or infinity is refused as `nonFinite`, naming the first such pixel in
    /// raster order. A truncated or damaged file throws `corrupt` with libtiff's message.
    ///
    /// Exposure tags (ExposureTime 33434, FNumber 33437, PhotographicSensitivity 34855) are read
    /// from the EXIF sub-IFD and, for any missing there, from IFD0. The ICC profile is tag 34675.
    /// Strips or rows of tiles are decoded in parallel row bands, one libtiff handle per band.
    ///
    /// `minimumSamplesPerBand` sets how much work a parallel band gets at least (each band
    /// beyond the first opens its own libtiff handle); the default suits large images, and tests
    /// pass 1 to force several bands on small ones.
    public static func read(path: String, maximumPixelCount: Int = 250_000_000,
                            minimumSamplesPerBand: Int = 1 << 20) throws(TIFFError) -> DecodedTIFF {
        let handle = try openForReading(path)
        let layout = try TIFFLayout(handle: handle, path: path, maximumPixelCount: maximumPixelCount)
        let iccProfile = readICCProfile(handle)
        var descriptionText: UnsafePointer<CChar>?
        let imageDescription = cc_tiff_get_string(handle.tif, UInt32(TIFFTAG_IMAGEDESCRIPTION), &descriptionText) == 1
            ? descriptionText.map { String(cString: $0) } : nil

        let count = layout.width * layout.height * layout.outputChannelCount
        // Float is a trivial type, so uninitialized elements are valid values; the decoder
        // overwrites every one of them before the array is used.
        var samples = uninitializedLargeArray(Float.self, count: count)
        let transparency = layout.alphaSample == nil ? nil : TransparentPixelTally(width: layout.width)
        // The file as first opened: every band's handle must be that file, and it must not change
        // before the decode ends (a frame replaced by a rename while its bands were read gave an
        // image mixed of both files, silently).
        let identity = FileIdentity(descriptor: TIFFFileno(handle.tif))
        let failure: TIFFError? = samples.withUnsafeMutableBufferPointer { buffer in
            decodeAll(handle: handle, layout: layout, path: path, output: SharedMutableBuffer(buffer),
                      minimumSamplesPerBand: minimumSamplesPerBand, transparency: transparency, identity: identity)
        }
        if let failure { throw failure }
        if let identity, FileIdentity(descriptor: TIFFFileno(handle.tif)) != identity || FileIdentity(path: path) != identity {
            throw .changedWhileRead(path: path)
        }

        var largestSample: Float?
        if layout.sampleKind.isFloatingPoint {
            let scan = samples.withUnsafeBufferPointer {
                scanFloatSamples($0, width: layout.width, height: layout.height, channelCount: layout.outputChannelCount)
            }
            if let bad = scan.firstNonFinite { throw .nonFinite(path: path, x: bad.x, y: bad.y, channel: bad.channel) }
            largestSample = scan.largest
        }

        var resolutionNote: String?
        let resolution = readResolution(handle.tif, note: &resolutionNote)
        // (Counted by walking the chain of directories' offsets, before the EXIF directory is read.)
        let imageCount = Int(TIFFNumberOfDirectories(handle.tif))
        // Reading the EXIF directory replaces the handle's current directory: do it last.
        var warnings = handle.messages.warningList
        let exposure = readExposure(handle, warnings: &warnings)
        var decoded = DecodedTIFF(
            path: path,
            image: PlanarImage(width: layout.width, height: layout.height,
                               channelCount: layout.outputChannelCount, samples: samples),
            bitsPerSample: layout.sampleKind.byteCount * 8,
            isFloatingPoint: layout.sampleKind.isFloatingPoint,
            exposure: exposure, iccProfile: iccProfile, orientation: layout.orientation, warnings: warnings,
            imageDescription: imageDescription)
        decoded.imageCount = max(1, imageCount)
        decoded.resolution = resolution
        decoded.resolutionNote = resolutionNote
        decoded.largestSample = largestSample
        decoded.transparentPixels = transparency?.result
        return decoded
    }

    /// Throws `unreadable` with the system's reason when `path` cannot be opened for reading or
    /// is not a regular file (a folder, a pipe: libtiff needs to seek), so that such paths are
    /// not reported as damaged TIFFs. Opens without blocking, so a named pipe cannot hang.
    public static func checkReadable(_ path: String) throws(TIFFError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw .unreadable(path: path, reason: "it is a folder")
        default: throw .unreadable(path: path, reason: "it is not a regular file")
        }
    }

    /// The InterColorProfile tag (34675) of the current directory, copied out of libtiff.
    static func readICCProfile(_ handle: TIFFHandle) -> [UInt8]? {
        var count: UInt32 = 0
        var data: UnsafeRawPointer?
        guard cc_tiff_get_bytes(handle.tif, UInt32(TIFFTAG_ICCPROFILE), &count, &data) == 1,
              let data, count > 0 else { return nil }
        return [UInt8](UnsafeRawBufferPointer(start: data, count: Int(count)))
    }

    /// ExposureTime, FNumber and PhotographicSensitivity from the EXIF sub-IFD, each falling back
    /// to IFD0 (where some tools write them; libtiff keeps them there as anonymous fields).
    ///
    /// Must be called last: it moves the handle to the EXIF directory. An unreadable EXIF
    /// directory is not fatal (exposure can come from the command line); it adds a warning.
    static func readExposure(_ handle: TIFFHandle, warnings: inout [String]) -> ExposureFields {
        let tif = handle.tif
        let path = String(cString: TIFFFileName(tif))
        // What the entries themselves said where libtiff's API could not (`number`), and the tags
        // so recovered (libtiff's own "tag ignored" warning is then not repeated).
        var entryNotes: [String] = [], recovered: Set<String> = [], directory = "IFD0"
        let tagNames: [UInt32: (name: String, type: String)] = [
            UInt32(EXIFTAG_EXPOSURETIME): ("ExposureTime", "RATIONAL"), UInt32(EXIFTAG_FNUMBER): ("FNumber", "RATIONAL"),
            UInt32(EXIFTAG_ISOSPEEDRATINGS): ("ISOSpeedRatings", "SHORT"), UInt32(EXIFTAG_SENSITIVITYTYPE): ("SensitivityType", "SHORT"),
            UInt32(EXIFTAG_STANDARDOUTPUTSENSITIVITY): ("StandardOutputSensitivity", "LONG"),
            UInt32(EXIFTAG_RECOMMENDEDEXPOSUREINDEX): ("RecommendedExposureIndex", "LONG"), UInt32(EXIFTAG_ISOSPEED): ("ISOSpeed", "LONG"),
            UInt32(EXIFTAG_FOCALLENGTH): ("FocalLength", "RATIONAL")]
        // Each tag of a directory read once (SensitivityType's resolution asks again), so its note is said once.
        var read: [String: Double?] = [:]
        func number(_ tag: UInt32) -> Double? {
            let key = "\(directory):\(tag)"
            if let known = read[key] { return known }
            let value = readNumber(tag)
            read[key] = value
            return value
        }
        func readNumber(_ tag: UInt32) -> Double? {
            let known = tagNames[tag] ?? (name: "tag \(tag)", type: "")
            let entries = TIFFRawDirectory.numericTags(UInt16(tag), of: tif, path: path)
            let entry = entries.first
            // A tag stored twice with different values (TIFF 6.0 allows one entry; libtiff keeps the
            // last without a word): which is the capture's is unknown, so neither is used, and said.
            if Set(entries.map(\.value)).count > 1 {
                let values = entries.map { $0.value.map { String(format: "%.6g", $0) } ?? "no value" }.joined(separator: ", ")
                entryNotes.append("\(known.name) appears \(entries.count) times in \(directory) with different values (\(values)): none is used")
                return nil
            }
            // A rational with a zero denominator has no value (libtiff reads 1/0 as 0): absent, and said.
            if let entry, entry.value == nil {
                entryNotes.append("\(known.name) in \(directory) is stored as \(entry.numerator)/0, which has no value (a zero denominator)")
                return nil
            }
            var value = 0.0
            guard cc_tiff_get_number(tif, tag, &value) == 1 else {
                // libtiff leaves out an EXIF directory's tag stored with another type than EXIF 2.3
                // gives it (ISO as LONG, ExposureTime as DOUBLE), where IFD0 keeps such a tag as an
                // anonymous field and reads it: the entry is read here, so that the same value is read
                // wherever it is stored, and its type is said.
                guard let entry, let v = entry.value else { return nil }
                recovered.insert(known.name)
                entryNotes.append("\(known.name) in \(directory) is stored as \(entry.typeName)"
                                  + (known.type.isEmpty ? "" : " (EXIF 2.3 gives it \(known.type))") + ": its value "
                                  + String(format: "%.6g", v) + " is used")
                return v
            }
            // A camera's RATIONAL (1/79 s, 18/10) as the exact quotient its entry stores, not
            // libtiff's float of it: the exposure ratio then equals the one of the same exposure typed
            // on the command line. A quotient a float holds exactly is what libtiff itself writes
            // from a float (13591669/2³⁰ for 0.012658228): it is read as below.
            if let entry, entry.isRational, let exact = entry.value,
               Float(exactly: exact) == nil, abs(exact - value) <= 1e-6 * abs(exact) { return exact }
            // Otherwise (the entry unreadable here): libtiff hands EXIF's rationals (ExposureTime,
            // FNumber) over as 32-bit floats: f/1.8 (18/10) came out as 1.7999999523162842. A
            // fraction a float holds exactly is taken as the shortest decimal that reads back as that
            // float (1.8); integers are left as they are (above 2²⁴ the shortest decimal of a float
            // is not the integer).
            if value != value.rounded(), let f = Float(exactly: value), let d = Double(String(f)) { return d }
            return value
        }
        let tags = (time: UInt32(EXIFTAG_EXPOSURETIME), fNumber: UInt32(EXIFTAG_FNUMBER),
                    iso: UInt32(EXIFTAG_ISOSPEEDRATINGS))
        var fields = ExposureFields(exposureTimeSeconds: number(tags.time), fNumber: number(tags.fNumber),
                                    isoSpeed: number(tags.iso))
        // EXIF 2.3 (CIPA DC-008-2012) section 4.6.5: PhotographicSensitivity (34855) holds one of ISO
        // 12232's parameters, StandardOutputSensitivity (34865), RecommendedExposureIndex (34866) or
        // ISOSpeed (34867); SensitivityType (34864) says which are recorded, and a recorded one
        // equals PhotographicSensitivity. Read from the directory the handle is on (IFD0 holds them
        // only where a tool put them there).
        func resolveSensitivity(_ fields: inout ExposureFields) {
            let parameters = [("StandardOutputSensitivity", UInt32(EXIFTAG_STANDARDOUTPUTSENSITIVITY)),
                              ("RecommendedExposureIndex", UInt32(EXIFTAG_RECOMMENDEDEXPOSUREINDEX)),
                              ("ISOSpeed", UInt32(EXIFTAG_ISOSPEED))]
            // (A tag of another type can hold anything: only a small whole number is a type.)
            let type = number(UInt32(EXIFTAG_SENSITIVITYTYPE)).flatMap { $0 >= 0 && $0 <= 7 && $0 == $0.rounded() ? Int($0) : nil } ?? 0
            // SensitivityType 1…7: which of the three it designates (bit 0 SOS, 1 REI, 2 ISO speed).
            let designatedBits = [1: 0b001, 2: 0b010, 3: 0b100, 4: 0b011, 5: 0b101, 6: 0b110, 7: 0b111][type] ?? 0
            let designated = parameters.indices.filter { designatedBits & (1 << $0) != 0 }
                .compactMap { i in number(parameters[i].1).map { (name: parameters[i].0, value: $0) } }
            guard let iso = fields.isoSpeed else {
                // PhotographicSensitivity absent: the parameter SensitivityType designates gives it.
                guard let first = designated.first else { return }
                fields.isoSpeed = first.value
                for other in designated.dropFirst() where abs(other.value - first.value) > 1e-3 * first.value {
                    fields.notes.append("PhotographicSensitivity is absent and SensitivityType \(type) designates \(first.name) "
                                        + String(format: "%g", first.value) + " and \(other.name) " + String(format: "%g", other.value)
                                        + ", which differ: ISO " + String(format: "%g", first.value) + " is assumed")
                }
                return
            }
            if iso >= 65535 {
                // 65535 means "65535 or more": the value is in the parameter recorded beside it
                // (RecommendedExposureIndex, ISOSpeed or StandardOutputSensitivity, in that order).
                let stated = [parameters[1], parameters[2], parameters[0]].compactMap { n, tag in number(tag).map { (n, $0) } }
                if let value = stated.first(where: { $0.1 >= 65535 })?.1 {
                    fields.isoSpeed = value
                } else if let (name, value) = stated.first {
                    fields.notes.append("PhotographicSensitivity is 65535, which EXIF uses for \"65535 or more\", but \(name) is "
                                        + String(format: "%g", value) + ", below 65535, so it cannot be that value (the tags contradict each other): ISO 65535 is assumed")
                } else {
                    fields.notes.append("PhotographicSensitivity is 65535, which EXIF uses for \"65535 or more\", and none of "
                                        + "RecommendedExposureIndex, ISOSpeed and StandardOutputSensitivity gives the value: ISO 65535 is assumed")
                }
                return
            }
            // A type that designates two or three parameters (4…7) records them all, and
            // PhotographicSensitivity holds one of them: the tags agree where it equals any.
            guard !designated.isEmpty, !designated.contains(where: { abs($0.value - iso) <= 1e-3 * iso }) else { return }
            let stated = designated.map { "\($0.name) " + String(format: "%g", $0.value) }.joined(separator: " and ")
            fields.notes.append("PhotographicSensitivity is " + String(format: "%g", iso) + " but SensitivityType \(type) says it records "
                                + stated + " (EXIF 2.3 has it equal to \(designated.count == 1 ? "that" : "one of them"); the tags contradict each other): ISO "
                                + String(format: "%g", iso) + " is used")
        }
        var exifOffset: UInt64 = 0
        guard cc_tiff_get_ifd8(tif, UInt32(TIFFTAG_EXIFIFD), &exifOffset) == 1, exifOffset != 0 else {
            resolveSensitivity(&fields)
            fields.notes += entryNotes
            return fields
        }
        // IFD0's values resolved while the handle is on it, for a file whose EXIF directory cannot be read.
        var ifd0Only = fields
        resolveSensitivity(&ifd0Only)
        ifd0Only.notes += entryNotes
        directory = "the EXIF directory"
        let errorsBefore = handle.messages.errorList.count, warningsBefore = handle.messages.warningList.count
        guard TIFFReadEXIFDirectory(tif, exifOffset) == 1 else {
            let reasons = handle.messages.errorList.dropFirst(errorsBefore).joined(separator: "; ")
            let problem = "the EXIF directory at offset \(exifOffset) could not be read" + (reasons.isEmpty ? "" : ": \(reasons)")
            warnings.append(problem)
            // A note, so that it is said with the exposure used (IFD0's) or in the refusal of a
            // file left without one: not "missing" tags, an unreadable directory.
            ifd0Only.notes.append(problem)
            return ifd0Only
        }
        // The EXIF directory's values win; where IFD0 holds another value too, the user hears of it
        // (two tools disagreeing about the exposure is a fault the ratio would inherit silently).
        let ifd0 = fields
        func exif(_ tag: UInt32, _ name: String, _ first: Double?, format: (Double) -> String) -> Double? {
            guard let value = number(tag) else { return nil }
            if let first, abs(first - value) > 1e-3 * max(abs(first), abs(value)) {
                fields.notes.append("\(name) is \(format(first)) in IFD0 and \(format(value)) in the EXIF directory: the EXIF value is used")
            }
            return value
        }
        func seconds(_ t: Double) -> String { t < 1 ? String(format: "1/%.4g s (%.6g s)", 1 / t, t) : String(format: "%.6g s", t) }
        if let t = exif(tags.time, "ExposureTime", ifd0.exposureTimeSeconds, format: seconds) { fields.exposureTimeSeconds = t }
        if let n = exif(tags.fNumber, "FNumber", ifd0.fNumber, format: { String(format: "f/%.4g", $0) }) { fields.fNumber = n }
        if let iso = exif(tags.iso, "ISOSpeedRatings", ifd0.isoSpeed, format: { String(format: "%.6g", $0) }) { fields.isoSpeed = iso }
        if let f = number(UInt32(EXIFTAG_FOCALLENGTH)), f > 0, f.isFinite { fields.focalLengthMillimetres = f }
        // A tag stored with a type or value libtiff refuses reads as absent: its warning says why.
        let names = ["ExposureTime", "FNumber", "ISOSpeedRatings", "PhotographicSensitivity"]
        for w in handle.messages.warningList.dropFirst(warningsBefore)
        where names.contains(where: { w.contains($0) }) && !recovered.contains(where: { w.contains("\"\($0)\"") }) {
            fields.notes.append("libtiff: " + w)
        }
        resolveSensitivity(&fields)
        fields.notes += entryNotes
        return fields
    }

    /// Decodes every strip or tile row into `output`, spreading row bands over the cores.
    ///
    /// The band that starts at row unit 0 uses `handle`; every other band opens its own libtiff
    /// handle (a handle is not thread-safe, separate handles are). Returns the failure of the
    /// earliest failing band, or nil.
    static func decodeAll(handle: TIFFHandle, layout: TIFFLayout, path: String,
                          output: SharedMutableBuffer<Float>, minimumSamplesPerBand: Int,
                          transparency: TransparentPixelTally? = nil, identity: FileIdentity? = nil) -> TIFFError? {
        let samplesPerUnit = layout.rowsPerUnit * layout.width * layout.outputChannelCount
        let minimumUnits = max(1, minimumSamplesPerBand / max(1, samplesPerUnit))
        let failures = FirstFinding<TIFFError>()
        let mainHandle = UncheckedSendableBox(handle)
        forEachRowBand(rowCount: layout.unitCount, minimumRowsPerBand: minimumUnits) { units in
            let bandHandle: TIFFHandle
            if units.lowerBound == 0 {
                bandHandle = mainHandle.value
            } else {
                switch TIFFHandle.open(path, mode: Self.readMode) {
                case .success(let h): bandHandle = h
                case .failure(let failure):
                    failures.record(order: units.lowerBound, .corrupt(path: path, detail: failure.message))
                    return
                }
                // The path must still name the file the first band reads.
                if let identity, FileIdentity(descriptor: TIFFFileno(bandHandle.tif)) != identity {
                    failures.record(order: units.lowerBound, .changedWhileRead(path: path))
                    return
                }
            }
            let chunk = UnsafeMutableRawPointer.allocate(byteCount: layout.chunkByteCount, alignment: 64)
            defer { chunk.deallocate() }
            let failure: TIFFError?
            switch layout.sampleKind {
            case .uint8:
                failure = decode(UInt8.self, units: units, handle: bandHandle, layout: layout, path: path,
                                 chunk: chunk, output: output, transparency: transparency)
            case .uint16:
                failure = decode(UInt16.self, units: units, handle: bandHandle, layout: layout, path: path,
                                 chunk: chunk, output: output, transparency: transparency)
            case .float16:
                failure = decode(BinaryFloat16.self, units: units, handle: bandHandle, layout: layout, path: path,
                                 chunk: chunk, output: output, transparency: transparency)
            case .float32:
                failure = decode(Float.self, units: units, handle: bandHandle, layout: layout, path: path,
                                 chunk: chunk, output: output, transparency: transparency)
            }
            if let failure { failures.record(order: units.lowerBound, failure) }
        }
        return failures.value
    }

    /// Decodes the strips (or rows of tiles) `units` with `handle` and converts their samples
    /// into the planes of `output`. Every libtiff read is checked for its full byte count and
    /// for errors libtiff reported along the way.
    static func decode<T: TIFFDecodedSample>(
        _: T.Type, units: Range<Int>, handle: TIFFHandle, layout: TIFFLayout, path: String,
        chunk: UnsafeMutableRawPointer, output: SharedMutableBuffer<Float>, transparency: TransparentPixelTally? = nil
    ) -> TIFFError? {
        let tif = handle.tif
        let width = layout.width
        let height = layout.height
        let planeSize = width * height
        let chunkSamplesPerPixel = layout.samplesPerChunkPixel
        // Planar-separate files: decode only the planes that are kept (not alpha / extras).
        let storedPlanes = layout.isPlanarSeparate ? layout.outputChannelCount : 1
        let channelsPerChunk = layout.isPlanarSeparate ? 1 : layout.outputChannelCount
        let errorsBefore = handle.messages.errorCount
        let source = chunk.assumingMemoryBound(to: T.self)
        let fileSize = TIFFLayout.fileSize(of: tif)

        func failure(_ what: String, _ index: UInt32, got: Int, expected: Int) -> TIFFError {
            let libtiff = handle.messages.errors
            // libtiff's "Read error at scanline 4294967295; got N bytes, expected M" (a chunk read
            // whole, its row −1 as unsigned; "on strip", "at row …, col …, tile" alike) says the file
            // ends inside the chunk's stored bytes.
            if let short = libtiff.firstMatch(of: /Read error (?:at|on) [^;]*; got (\d+) bytes, expected (\d+)/),
               let present = Int(short.1), let stored = Int(short.2), present < stored {
                return .corrupt(path: path, detail: "\(what) \(index) is cut short: the file holds \(present) of its \(stored) stored bytes (the file is truncated)")
            }
            return .corrupt(path: path, detail: "cannot decode \(what) \(index)"
                            + (got >= 0 ? " (\(got) of \(expected) bytes)" : "")
                            + (libtiff.isEmpty ? "" : ": \(libtiff)"))
        }

        /// A Deflate chunk whose zlib stream does not end with a matching checksum: the file is
        /// damaged, though libtiff decoded it (LZW and PackBits carry no checksum to test).
        func deflateDamage(_ what: String, _ index: UInt32, expected: Int) -> TIFFError? {
            guard layout.isDeflate else { return nil }
            switch cc_tiff_deflate_chunk_is_intact(tif, index, UInt64(expected)) {
            case 1: return nil
            case 0: return .corrupt(path: path, detail: "\(what) \(index) is damaged: its Deflate data do not inflate to a stream whose Adler-32 checksum matches (RFC 1950)")
            default: return failure(what, index, got: -1, expected: expected)
            }
        }

        /// Reads chunk `index` (a strip or a tile) into `chunk`, checked for its full byte count,
        /// libtiff's errors and, for Deflate, its checksum.
        func read(_ what: String, _ index: UInt32, expected: Int) -> TIFFError? {
            // A chunk stored with no bytes (offset and byte count 0: a "sparse" file's missing chunk,
            // TIFF 6.0 leaves it undefined) has no pixels to read: libtiff reads an uncompressed one
            // from offset 0, the file's header, without an error.
            let byteCount = TIFFGetStrileByteCount(tif, index)
            guard byteCount > 0 else {
                return .corrupt(path: path, detail: "\(what) \(index) holds no data (its byte count is 0): its pixels are missing from the file")
            }
            // A chunk whose stored bytes run past the end of the file: the file is truncated (or its
            // directory damaged), though an uncompressed chunk's pixels may all be there (libtiff
            // reads only the chunk's size of them, and said nothing).
            let offset = TIFFGetStrileOffset(tif, index)
            if let fileSize, offset >= fileSize {
                return .corrupt(path: path, detail: "\(what) \(index) starts at offset \(offset), past the end of the \(fileSize)-byte file (a truncated file, or a damaged directory)")
            }
            if let fileSize, byteCount > fileSize - offset {
                return .corrupt(path: path, detail: "\(what) \(index) is cut short: the file holds \(fileSize - offset) of its \(byteCount) stored bytes (a truncated file, or a damaged directory)")
            }
            // An uncompressed chunk holds its rows' bytes: one declared shorter ends inside them, and
            // libtiff (whose estimate replaces only counts that do not fit the image as a whole) reads
            // the rest from whatever follows.
            if layout.isUncompressed, byteCount < UInt64(expected) {
                return .corrupt(path: path, detail: "\(what) \(index) is stored as \(byteCount) bytes, but its uncompressed pixels take \(expected)")
            }
            let got = Int(what == "strip" ? TIFFReadEncodedStrip(tif, index, chunk, tmsize_t(layout.chunkByteCount))
                                          : TIFFReadEncodedTile(tif, index, chunk, tmsize_t(layout.chunkByteCount)))
            guard got >= expected, handle.messages.errorCount == errorsBefore else {
                return failure(what, index, got: got, expected: expected)
            }
            return deflateDamage(what, index, expected: expected)
        }
        // The planes read: the kept ones, and a planar file's alpha plane, read for its coverage only.
        let alphaPlane = layout.isPlanarSeparate && transparency != nil ? layout.alphaSample : nil
        let planes = Array(0..<storedPlanes) + (alphaPlane.map { [$0] } ?? [])
        /// The chunk just read into the output planes (`plane` a kept one) and its alpha's coverage
        /// counted (`TransparentPixelTally`: at `alphaSample` of each chunky pixel, or every sample
        /// of the alpha plane).
        func use(plane: Int, rows: Int, columns: Int, rowStride: Int, x0: Int, y0: Int) {
            if plane < storedPlanes {
                convertBlock(source: source, rows: rows, columns: columns, sourceRowStride: rowStride,
                             sourcePixelStride: chunkSamplesPerPixel, channelCount: channelsPerChunk,
                             destination: output.base + plane * planeSize + y0 * width + x0,
                             destinationRowStride: width, planeSize: planeSize)
            }
            guard let transparency, let a = layout.alphaSample else { return }
            if plane == alphaPlane || !layout.isPlanarSeparate {
                transparency.scan(source, rows: rows, columns: columns, rowStride: rowStride, pixelStride: chunkSamplesPerPixel,
                                  sample: layout.isPlanarSeparate ? 0 : a, opaque: layout.sampleKind.opaqueAlpha, x0: x0, y0: y0)
            }
        }

        switch layout.chunking {
        case .strips(let rowsPerStrip):
            let stripsPerPlane = layout.unitCount
            let rowSamples = width * chunkSamplesPerPixel
            for unit in units {
                let y0 = unit * rowsPerStrip
                let rows = min(rowsPerStrip, height - y0)
                let expected = rows * rowSamples * MemoryLayout<T>.size
                for plane in planes {
                    if let failed = read("strip", UInt32(plane * stripsPerPlane + unit), expected: expected) { return failed }
                    use(plane: plane, rows: rows, columns: width, rowStride: rowSamples, x0: 0, y0: y0)
                }
            }
        case .tiles(let tileWidth, let tileLength):
            let rowSamples = tileWidth * chunkSamplesPerPixel
            let expected = tileLength * rowSamples * MemoryLayout<T>.size
            for unit in units {
                let y0 = unit * tileLength
                let rows = min(tileLength, height - y0)
                for x0 in stride(from: 0, to: width, by: tileWidth) {
                    let columns = min(tileWidth, width - x0)
                    for plane in planes {
                        if let failed = read("tile", TIFFComputeTile(tif, UInt32(x0), UInt32(y0), 0, UInt16(plane)), expected: expected) {
                            return failed
                        }
                        use(plane: plane, rows: rows, columns: columns, rowStride: rowSamples, x0: x0, y0: y0)
                    }
                }
            }
        }
        return nil
    }

    /// Copies a block of interleaved stored samples into planar `Float`s.
    ///
    /// Sample `c` of pixel `x` in block row `r` is `source[r * sourceRowStride + x * sourcePixelStride + c]`
    /// and goes to `destination[c * planeSize + r * destinationRowStride + x]`.
    @inline(__always)
    static func convertBlock<T: TIFFDecodedSample>(
        source: UnsafePointer<T>, rows: Int, columns: Int, sourceRowStride: Int, sourcePixelStride: Int,
        channelCount: Int, destination: UnsafeMutablePointer<Float>, destinationRowStride: Int, planeSize: Int
    ) {
        for r in 0..<rows {
            let s = source + r * sourceRowStride
            let d0 = destination + r * destinationRowStride
            switch (sourcePixelStride, channelCount) {
            case (1, 1):
                for x in 0..<columns { d0[x] = s[x].floatValue }
            case (3, 3):
                let d1 = d0 + planeSize
                let d2 = d1 + planeSize
                for x in 0..<columns {
                    d0[x] = s[3 * x].floatValue
                    d1[x] = s[3 * x + 1].floatValue
                    d2[x] = s[3 * x + 2].floatValue
                }
            case (4, 3):
                let d1 = d0 + planeSize
                let d2 = d1 + planeSize
                for x in 0..<columns {
                    d0[x] = s[4 * x].floatValue
                    d1[x] = s[4 * x + 1].floatValue
                    d2[x] = s[4 * x + 2].floatValue
                }
            default:
                for c in 0..<channelCount {
                    let d = d0 + c * planeSize
                    for x in 0..<columns { d[x] = s[sourcePixelStride * x + c].floatValue }
                }
            }
        }
    }
}
