// Little CMS 2 for Swift.
//
// Swift imports plain C declarations but not function-like macros: the pixel-format
// constants of lcms2.h (TYPE_RGB_FLT, ...) are built from FLOAT_SH(), CHANNELS_SH() and
// friends, so Swift cannot see them. They are re-exported here as typed `static const`
// values, named `CLCMS2_<macro>`, whose values the compiler computes from the real macros
// (so they cannot drift from the installed header). Little CMS 2 has no variadic API that
// this package uses, so no wrapper functions are needed.
#ifndef CLCMS2_SHIM_H
#define CLCMS2_SHIM_H

#include <lcms2.h>

// Pixel formats (lcms2.h "Formatters"). Double formats use native doubles: RGB in 0...1,
// XYZ with Y of the white = 1, Lab with L* in 0...100.
static const cmsUInt32Number CLCMS2_TYPE_RGB_FLT = TYPE_RGB_FLT;
static const cmsUInt32Number CLCMS2_TYPE_RGB_DBL = TYPE_RGB_DBL;
static const cmsUInt32Number CLCMS2_TYPE_XYZ_FLT = TYPE_XYZ_FLT;
static const cmsUInt32Number CLCMS2_TYPE_XYZ_DBL = TYPE_XYZ_DBL;
static const cmsUInt32Number CLCMS2_TYPE_Lab_FLT = TYPE_Lab_FLT;
static const cmsUInt32Number CLCMS2_TYPE_Lab_DBL = TYPE_Lab_DBL;

// Planar float variants (lcms2.h defines no planar float RGB/XYZ/Lab formats; PLANAR_SH(1)
// is how lcms2.h builds its own planar formats such as TYPE_RGB_16_PLANAR).
static const cmsUInt32Number CLCMS2_TYPE_RGB_FLT_PLANAR = TYPE_RGB_FLT | PLANAR_SH(1);
static const cmsUInt32Number CLCMS2_TYPE_XYZ_FLT_PLANAR = TYPE_XYZ_FLT | PLANAR_SH(1);
static const cmsUInt32Number CLCMS2_TYPE_Lab_FLT_PLANAR = TYPE_Lab_FLT | PLANAR_SH(1);

// Transform flags and rendering intents used by this package.
static const cmsUInt32Number CLCMS2_FLAGS_NOCACHE = cmsFLAGS_NOCACHE;
static const cmsUInt32Number CLCMS2_FLAGS_NOOPTIMIZE = cmsFLAGS_NOOPTIMIZE;
static const cmsUInt32Number CLCMS2_INTENT_PERCEPTUAL = INTENT_PERCEPTUAL;
static const cmsUInt32Number CLCMS2_INTENT_RELATIVE_COLORIMETRIC = INTENT_RELATIVE_COLORIMETRIC;
static const cmsUInt32Number CLCMS2_INTENT_ABSOLUTE_COLORIMETRIC = INTENT_ABSOLUTE_COLORIMETRIC;

// Version of the header this module was compiled against (lcms2.h LCMS_VERSION, e.g. 2140).
static const int CLCMS2_LCMS_VERSION = LCMS_VERSION;

#endif
