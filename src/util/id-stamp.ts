/** A time as it appears in run ids and bank tags: UTC to the second, without separators (20260105T221530Z). */
export const idStamp = (d: Date): string =>
  d
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
