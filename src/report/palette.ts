/**
 * How every hexa chart tells its series apart (the compare plot, and the report page through html.ts): the
 * colour-blind-safe palette of Okabe & Ito ("Color Universal Design", 2008) without its yellow, which is faint on
 * white, and a dash pattern per series, so that two series drawn over each other stay visible (the upper one's
 * gaps show the lower) and a series is told apart without colour at all.
 */
export const SERIES_COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"] as const;

/** Stroke dash arrays in pixels; the first series solid. Five patterns beside seven colours: 35 series before a pair repeats. */
export const SERIES_DASHES: readonly (readonly number[])[] = [[], [9, 3], [2, 2], [9, 3, 2, 3], [5, 5]];

export const seriesColour = (i: number): string => SERIES_COLOURS[i % SERIES_COLOURS.length]!;
export const seriesDash = (i: number): number[] => [...SERIES_DASHES[i % SERIES_DASHES.length]!];
