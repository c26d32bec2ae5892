/** Debian's chromium, the one browser hexa drives (frames of an episode, the report tests); never a downloaded one. */
export const CHROMIUM = "/usr/bin/chromium";
