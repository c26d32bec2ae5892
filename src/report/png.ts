import { Resvg } from "@resvg/resvg-js";

/** SVG rasterisation, resvg's one home (docs/spec/style.md §2). Pictures carry their own size, so nothing is rescaled. */

export interface Raster {
  width: number;
  height: number;
  /** RGBA, row by row from the top-left, in its own buffer. */
  pixels: Uint8Array;
}

// No text is drawn, so system fonts are never needed; loading them is the slow part of a render.
const render = (svg: string) => new Resvg(svg, { font: { loadSystemFonts: false }, background: "white" }).render();

export const svgToRaster = (svg: string): Raster => {
  const image = render(svg);
  return { width: image.width, height: image.height, pixels: new Uint8Array(image.pixels) };
};

export const svgToPng = (svg: string): Uint8Array => new Uint8Array(render(svg).asPng());

/** Charts carry text (axes, legends), so unlike level pictures they need the system's fonts. */
export const chartToPng = (svg: string): Uint8Array =>
  new Uint8Array(new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: "DejaVu Sans" }, background: "white" }).render().asPng());
