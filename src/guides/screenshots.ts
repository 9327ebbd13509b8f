/**
 * The screenshots the served manual shows (docs/screenshots/, which the package and the image
 * ship): the names build-guides.ts renders as images and docs.ts serves under
 * /docs/guides/screenshots/. Apart from build-guides.ts, which the production build replaces
 * with its rendered pages.
 */

/** A screenshot's file name: letters, digits, `.`, `_`, `-`, and a raster type (an SVG could carry script). */
export const SCREENSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*\.(png|jpe?g|webp)$/;

/** Its Content-Type, by extension. */
export const SCREENSHOT_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
};
