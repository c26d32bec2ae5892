/** A count with its noun, singular for 1: `counted(1, "success", "successes")` → "1 success". */
export const counted = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
