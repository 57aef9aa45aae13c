// Typed wrappers around libtiff for Swift.
//
// Swift cannot call C variadic functions (TIFFGetField, TIFFSetField) and cannot implement a
// handler that takes a `va_list` portably, so every call the package needs has a small
// `static inline` wrapper here with a fixed signature. All wrappers return libtiff's own status
// (1 = success, 0 = failure / tag absent) unless stated otherwise.
#ifndef CONSTANT_COLOR_CTIFF_SHIM_H
#define CONSTANT_COLOR_CTIFF_SHIM_H

#include <tiffio.h>
#include <zlib.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

// MARK: - Per-handle message capture (libtiff >= 4.5: TIFFOpenExt + TIFFOpenOptions)

/// Messages libtiff reported for one handle; the buffers are owned by the caller.
typedef struct cc_tiff_messages {
    char *errors;          ///< NUL-terminated, "module: message" entries separated by newlines.
    size_t errorsCapacity; ///< Size of `errors` in bytes, including the terminating NUL.
    int errorCount;        ///< Number of errors reported so far.
    char *warnings;        ///< Same as `errors`, for warnings.
    size_t warningsCapacity;
    int warningCount;
} cc_tiff_messages;

static inline void cc_tiff_append_message(char *buffer, size_t capacity, const char *module,
                                          const char *fmt, va_list ap) {
    if (buffer == NULL || capacity < 2) return;
    size_t used = strnlen(buffer, capacity - 1);
    if (used + 1 >= capacity) return;
    int n = 0;
    if (used > 0) {
        n = snprintf(buffer + used, capacity - used, "\n");
        if (n < 0) return;
        used += (size_t)n;
        if (used + 1 >= capacity) return;
    }
    if (module != NULL && module[0] != '\0') {
        n = snprintf(buffer + used, capacity - used, "%s: ", module);
        if (n < 0) return;
        used += (size_t)n;
        if (used + 1 >= capacity) return;
    }
    vsnprintf(buffer + used, capacity - used, fmt, ap);
}

/// TIFFErrorHandlerExtR: records the error and returns 1 so libtiff does not also call the
/// global handler (which prints to standard error).
static inline int cc_tiff_error_handler(TIFF *tif, void *user_data, const char *module,
                                        const char *fmt, va_list ap) {
    (void)tif;
    cc_tiff_messages *m = (cc_tiff_messages *)user_data;
    if (m == NULL) return 1;
    m->errorCount += 1;
    cc_tiff_append_message(m->errors, m->errorsCapacity, module, fmt, ap);
    return 1;
}

/// TIFFErrorHandlerExtR for warnings; records and swallows them.
static inline int cc_tiff_warning_handler(TIFF *tif, void *user_data, const char *module,
                                          const char *fmt, va_list ap) {
    (void)tif;
    cc_tiff_messages *m = (cc_tiff_messages *)user_data;
    if (m == NULL) return 1;
    m->warningCount += 1;
    cc_tiff_append_message(m->warnings, m->warningsCapacity, module, fmt, ap);
    return 1;
}

/// TIFFOpenExt with both handlers routed into `messages` (which must outlive the handle).
/// Returns NULL on failure; the reason is in `messages->errors`.
static inline TIFF *cc_tiff_open(const char *path, const char *mode, cc_tiff_messages *messages) {
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
    if (opts == NULL) return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(opts, cc_tiff_error_handler, messages);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, cc_tiff_warning_handler, messages);
    TIFF *tif = TIFFOpenExt(path, mode, opts);
    TIFFOpenOptionsFree(opts);
    return tif;
}

// MARK: - Typed TIFFGetField wrappers

/// TIFFGetField for a tag whose value is one uint16_t.
static inline int cc_tiff_get_u16(TIFF *tif, uint32_t tag, uint16_t *value) {
    return TIFFGetField(tif, tag, value);
}
/// TIFFGetFieldDefaulted for a tag whose value is one uint16_t.
static inline int cc_tiff_get_u16_defaulted(TIFF *tif, uint32_t tag, uint16_t *value) {
    return TIFFGetFieldDefaulted(tif, tag, value);
}
/// TIFFGetField for a tag whose value is one uint32_t.
static inline int cc_tiff_get_u32(TIFF *tif, uint32_t tag, uint32_t *value) {
    return TIFFGetField(tif, tag, value);
}
/// TIFFGetFieldDefaulted for a tag whose value is one uint32_t.
static inline int cc_tiff_get_u32_defaulted(TIFF *tif, uint32_t tag, uint32_t *value) {
    return TIFFGetFieldDefaulted(tif, tag, value);
}
/// TIFFGetField for an IFD offset tag (TIFFTAG_EXIFIFD is TIFF_SETGET_IFD8: a uint64_t).
static inline int cc_tiff_get_ifd8(TIFF *tif, uint32_t tag, uint64_t *value) {
    return TIFFGetField(tif, tag, value);
}
/// TIFFGetField for an ASCII tag; `*value` points into libtiff's storage.
static inline int cc_tiff_get_string(TIFF *tif, uint32_t tag, const char **value) {
    char *s = NULL;
    int ok = TIFFGetField(tif, tag, &s);
    *value = s;
    return ok;
}
/// TIFFGetField for a counted byte array such as TIFFTAG_ICCPROFILE (34675): uint32_t count.
static inline int cc_tiff_get_bytes(TIFF *tif, uint32_t tag, uint32_t *count, const void **data) {
    void *p = NULL;
    uint32_t n = 0;
    int ok = TIFFGetField(tif, tag, &n, &p);
    *count = n;
    *data = p;
    return ok;
}
/// TIFFGetField for TIFFTAG_EXTRASAMPLES (uint16_t count, uint16_t array).
static inline int cc_tiff_get_extrasamples(TIFF *tif, uint16_t *count, const uint16_t **types) {
    uint16_t *p = NULL;
    uint16_t n = 0;
    int ok = TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &n, &p);
    *count = n;
    *types = p;
    return ok;
}

/// Converts element `index` of a libtiff value array to double, using the field's data type and
/// internal storage size (TIFFFieldSetGetSize). Returns 0 for types it does not know.
static inline int cc_tiff_element_to_double(const void *p, TIFFDataType type, int size,
                                            double *out) {
    if (p == NULL) return 0;
    switch (type) {
    case TIFF_BYTE: case TIFF_UNDEFINED:
        if (size != 1) return 0;
        *out = (double)*(const uint8_t *)p; return 1;
    case TIFF_SBYTE:
        if (size != 1) return 0;
        *out = (double)*(const int8_t *)p; return 1;
    case TIFF_SHORT:
        if (size != 2) return 0;
        *out = (double)*(const uint16_t *)p; return 1;
    case TIFF_SSHORT:
        if (size != 2) return 0;
        *out = (double)*(const int16_t *)p; return 1;
    case TIFF_LONG: case TIFF_IFD:
        if (size != 4) return 0;
        *out = (double)*(const uint32_t *)p; return 1;
    case TIFF_SLONG:
        if (size != 4) return 0;
        *out = (double)*(const int32_t *)p; return 1;
    case TIFF_LONG8: case TIFF_IFD8:
        if (size != 8) return 0;
        *out = (double)*(const uint64_t *)p; return 1;
    case TIFF_SLONG8:
        if (size != 8) return 0;
        *out = (double)*(const int64_t *)p; return 1;
    case TIFF_RATIONAL: case TIFF_SRATIONAL: case TIFF_FLOAT: case TIFF_DOUBLE:
        if (size == 4) { *out = (double)*(const float *)p; return 1; }
        if (size == 8) { *out = *(const double *)p; return 1; }
        return 0;
    default:
        return 0;
    }
}

/// Reads the first value of a numeric tag of the current directory as a double, whatever its
/// TIFF type and however libtiff stores it: known tags (e.g. EXIF ExposureTime in the EXIF
/// directory), counted arrays (ISOSpeedRatings) and the anonymous fields libtiff creates for
/// tags it does not know in IFD0. Uses TIFFFindField so an unknown tag reports nothing.
/// Returns 1 when the tag is present and numeric.
static inline int cc_tiff_get_number(TIFF *tif, uint32_t tag, double *out) {
    const TIFFField *f = TIFFFindField(tif, tag, TIFF_ANY);
    if (f == NULL) return 0;
    TIFFDataType type = TIFFFieldDataType(f);
    int size = TIFFFieldSetGetSize(f);
    if (size <= 0) return 0;
    if (TIFFFieldPassCount(f)) {
        void *p = NULL;
        if (TIFFFieldSetGetCountSize(f) == 4) {
            uint32_t n = 0;
            if (!TIFFGetField(tif, tag, &n, &p) || n < 1) return 0;
        } else {
            uint16_t n = 0;
            if (!TIFFGetField(tif, tag, &n, &p) || n < 1) return 0;
        }
        return cc_tiff_element_to_double(p, type, size, out);
    }
    if (TIFFFieldReadCount(f) == 1) {
        union { uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64; float f; double d; } v;
        memset(&v, 0, sizeof v);
        if (!TIFFGetField(tif, tag, &v)) return 0;
        return cc_tiff_element_to_double(&v, type, size, out);
    }
    void *p = NULL;
    if (!TIFFGetField(tif, tag, &p)) return 0;
    return cc_tiff_element_to_double(p, type, size, out);
}

// MARK: - Typed TIFFSetField wrappers

/// TIFFSetField for a uint16_t-valued tag (passed promoted to int, as libtiff reads it).
static inline int cc_tiff_set_u16(TIFF *tif, uint32_t tag, uint16_t value) {
    return TIFFSetField(tif, tag, (int)value);
}
/// TIFFSetField for a uint32_t-valued tag.
static inline int cc_tiff_set_u32(TIFF *tif, uint32_t tag, uint32_t value) {
    return TIFFSetField(tif, tag, value);
}
/// TIFFSetField for an IFD offset tag (TIFFTAG_EXIFIFD, TIFF_SETGET_IFD8).
static inline int cc_tiff_set_ifd8(TIFF *tif, uint32_t tag, uint64_t value) {
    return TIFFSetField(tif, tag, value);
}
/// TIFFSetField for a single floating-point or rational tag (libtiff reads a double vararg).
static inline int cc_tiff_set_double(TIFF *tif, uint32_t tag, double value) {
    return TIFFSetField(tif, tag, value);
}
/// TIFFSetField for an ASCII tag.
static inline int cc_tiff_set_string(TIFF *tif, uint32_t tag, const char *value) {
    return TIFFSetField(tif, tag, value);
}
/// TIFFSetField for a counted byte array with a uint32_t count (TIFFTAG_ICCPROFILE).
static inline int cc_tiff_set_bytes(TIFF *tif, uint32_t tag, uint32_t count, const void *data) {
    return TIFFSetField(tif, tag, count, data);
}
/// TIFFSetField for a counted uint16_t array with a 16-bit count (TIFFTAG_EXTRASAMPLES,
/// EXIFTAG_ISOSPEEDRATINGS); the count is passed promoted to int, as libtiff reads it.
static inline int cc_tiff_set_u16_array(TIFF *tif, uint32_t tag, uint16_t count,
                                        const uint16_t *values) {
    return TIFFSetField(tif, tag, (int)count, values);
}
/// TIFFSetField for TIFFTAG_COLORMAP (three arrays of 2^BitsPerSample uint16_t).
static inline int cc_tiff_set_colormap(TIFF *tif, const uint16_t *r, const uint16_t *g,
                                       const uint16_t *b) {
    return TIFFSetField(tif, TIFFTAG_COLORMAP, r, g, b);
}
/// TIFFSetField for TIFFTAG_YCBCRSUBSAMPLING (two uint16_t values).
static inline int cc_tiff_set_ycbcr_subsampling(TIFF *tif, uint16_t horizontal, uint16_t vertical) {
    return TIFFSetField(tif, TIFFTAG_YCBCRSUBSAMPLING, (int)horizontal, (int)vertical);
}

// MARK: - EXIF exposure tags outside the EXIF directory

/// Registers ExposureTime (33434), FNumber (33437) and PhotographicSensitivity (34855) as
/// custom fields of the current (main) directory, so they can be written into IFD0 where some
/// tools put them (EXIF 2.3 places them in the EXIF sub-IFD). Returns 0 on success.
static inline int cc_tiff_register_ifd0_exposure_fields(TIFF *tif) {
    static const TIFFFieldInfo info[] = {
        {33434, 1, 1, TIFF_RATIONAL, FIELD_CUSTOM, 1, 0, (char *)"ExposureTime"},
        {33437, 1, 1, TIFF_RATIONAL, FIELD_CUSTOM, 1, 0, (char *)"FNumber"},
        {34855, -1, -1, TIFF_SHORT, FIELD_CUSTOM, 1, 1, (char *)"ISOSpeedRatings"},
    };
    return TIFFMergeFieldInfo(tif, info, (uint32_t)(sizeof info / sizeof info[0]));
}

// MARK: - Deflate integrity

/// Whether chunk `index` (a strip, or a tile) of a Deflate-compressed image holds one whole zlib
/// stream (RFC 1950) whose Adler-32 matches the data it inflates to, and that data is at least
/// `expected` bytes: 1 yes, 0 no, -1 its raw bytes could not be read. libtiff's decoder stops once
/// the chunk's bytes are filled and never reads the stream's checksum, so data damaged in a way
/// that still inflates passed it (a review flipped two bytes of a Deflate frame: fused with exit 0,
/// 35 rows of garbage). The chunk is inflated a second time, into a discarded buffer.
static inline int cc_tiff_deflate_chunk_is_intact(TIFF *tif, uint32_t index, uint64_t expected) {
    uint64_t size = TIFFGetStrileByteCount(tif, index);
    if (size == 0 || size > (uint64_t)UINT32_MAX) return -1;
    unsigned char *raw = (unsigned char *)malloc((size_t)size);
    const size_t outSize = 1 << 18;
    unsigned char *out = (unsigned char *)malloc(outSize);
    if (raw == NULL || out == NULL) { free(raw); free(out); return -1; }
    tmsize_t got = TIFFIsTiled(tif) ? TIFFReadRawTile(tif, index, raw, (tmsize_t)size)
                                    : TIFFReadRawStrip(tif, index, raw, (tmsize_t)size);
    if (got != (tmsize_t)size) { free(raw); free(out); return -1; }
    // Raw chunks are as stored: with FillOrder 2 (TIFF 6.0, tag 266) each byte's bits are reversed,
    // which libtiff undoes only on its own decoding path.
    uint16_t fillOrder = FILLORDER_MSB2LSB;
    if (TIFFGetFieldDefaulted(tif, TIFFTAG_FILLORDER, &fillOrder) == 1 && fillOrder == FILLORDER_LSB2MSB) {
        TIFFReverseBits(raw, (tmsize_t)size);
    }
    z_stream z;
    memset(&z, 0, sizeof z);
    int result = 0;
    if (inflateInit(&z) == Z_OK) {
        z.next_in = raw;
        z.avail_in = (uInt)size;
        int status;
        do {
            z.next_out = out;
            z.avail_out = (uInt)outSize;
            status = inflate(&z, Z_NO_FLUSH);
        } while (status == Z_OK);
        result = status == Z_STREAM_END && (uint64_t)z.total_out >= expected;
        inflateEnd(&z);
    }
    free(raw);
    free(out);
    return result;
}

#endif
