/// A floating-point image stored as contiguous planes: all of channel 0, then all of channel 1, ...
///
/// Sample `(x, y)` of channel `c` is at `samples[c * width * height + y * width + x]`.
/// Units are whatever the producing stage says (camera data numbers after decode, normalized
/// radiometric units after exposure normalization, linear output RGB after rendering).
public struct PlanarImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Number of planes (1 for a single-channel map, 3 for RGB).
    public let channelCount: Int
    /// The planes, one after the other, each `width * height` samples, row-major. Replacing it keeps
    /// `width × height × channelCount` values: the stages read it through pointers and check the count
    /// only at the library's doors (`FusionPipeline.checkInputs`, `TIFFWriter`).
    public var samples: [Float]

    /// Number of pixels in one plane.
    @inlinable public var pixelCount: Int { width * height }

    /// An image with every sample set to `value`.
    public init(width: Int, height: Int, channelCount: Int, repeating value: Float = 0) {
        precondition(width >= 0 && height >= 0 && channelCount > 0)
        self.width = width
        self.height = height
        self.channelCount = channelCount
        self.samples = largeArray(repeating: value, count: width * height * channelCount)
    }

    /// An image whose samples are left unset, for kernels that write every sample before anything
    /// reads one (saves the zero fill of a buffer that can be hundreds of megabytes).
    public init(width: Int, height: Int, channelCount: Int, uninitialized: Void) {
        self.init(width: width, height: height, channelCount: channelCount, reusing: [])
    }

    /// An image whose samples are left unset, written into the storage of `storage` (the samples of
    /// a buffer nothing reads any more, e.g. a consumed frame's) when it is large enough, else into a
    /// fresh buffer (`recycledLargeArray`): the pages of the old buffer are touched already, a fresh
    /// one's are faulted in and zeroed by the kernel.
    public init(width: Int, height: Int, channelCount: Int, reusing storage: consuming [Float]) {
        precondition(width >= 0 && height >= 0 && channelCount > 0)
        self.width = width
        self.height = height
        self.channelCount = channelCount
        self.samples = recycledLargeArray(consume storage, count: width * height * channelCount, zero: 0)
    }

    /// An image wrapping existing planar samples; `samples.count` must equal `width * height * channelCount`.
    public init(width: Int, height: Int, channelCount: Int, samples: [Float]) {
        precondition(samples.count == width * height * channelCount, "sample count does not match size")
        self.width = width
        self.height = height
        self.channelCount = channelCount
        self.samples = samples
    }

    /// The sample of channel `c` at column `x`, row `y`.
    @inlinable public subscript(x: Int, y: Int, c: Int) -> Float {
        get { samples[c * width * height + y * width + x] }
        set { samples[c * width * height + y * width + x] = newValue }
    }

    /// Offset of the first sample of channel `c`.
    @inlinable public func planeOffset(_ c: Int) -> Int { c * width * height }

    /// Moves the image out, leaving an empty one with the same channel count, so that a consumer
    /// can reuse its buffer in place (the moved-out samples have no other reference).
    public mutating func take() -> PlanarImage {
        var taken = PlanarImage(width: 0, height: 0, channelCount: channelCount)
        swap(&taken, &self)
        return taken
    }

    /// A copy of one channel as a single-channel image.
    public func plane(_ c: Int) -> PlanarImage {
        let n = pixelCount
        return PlanarImage(width: width, height: height, channelCount: 1,
                           samples: Array(samples[(c * n)..<((c + 1) * n)]))
    }
}
