/** Where the red ball may go (interphyre.md §4.2). */
export interface ActionBounds {
  x: readonly [number, number];
  y: readonly [number, number];
  radius: readonly [number, number];
}
