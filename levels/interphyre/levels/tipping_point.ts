import { defineLevel } from "./define-level.ts";
import { bar, barTopBottom, basket } from "../objects.ts";

/** Causal chain: the red ball strikes the upright green bar, which topples out of the basket against the purple wall. */
export default defineLevel({
  id: "tipping_point",
  goal: ["green_bar", "purple_wall"],
  description:
    "A small dynamic gray basket stands near the bottom of the world, and a dynamic green bar stands upright inside " +
    "it. A static purple wall spans the full height of the world at its left or right edge. " +
    "Goal: the green bar touches the purple wall for 3 seconds.",
  generate: (rng) => {
    const barLength = rng.uniform(2, 5);
    const jitterX = rng.uniform(-0.1, 0.1);

    const minX = -3;
    const maxX = 3;
    const reach = barLength * 0.8;
    let leftMax = Math.min(maxX, -4.9 + reach - 0.1);
    let rightMin = Math.max(minX, 4.9 - reach + 0.1);
    let canLeft = leftMax >= minX;
    let canRight = rightMin <= maxX;
    if (!canLeft && !canRight) {
      leftMax = Math.min(maxX, -4.9 + barLength);
      rightMin = Math.max(minX, 4.9 - barLength);
      canLeft = leftMax >= minX;
      canRight = rightMin <= maxX;
    }

    let toLeft: boolean;
    if (canLeft && canRight) toLeft = rng.choice([true, false]);
    else toLeft = canLeft;
    const basketX = toLeft ? rng.uniform(minX, leftMax) : rng.uniform(rightMin, maxX);
    const wallX = toLeft ? -4.9 : 4.9;

    const cup = basket(basketX, -4.9, 0.45, {
      wallThickness: 0.13,
      anchor: "bottom_center",
      color: "gray",
      dynamic: true,
    });
    const barBottom = -4.9 + cup.floor_thickness + 0.02;
    const greenBar = bar(basketX + jitterX, barBottom + barLength / 2, barLength, 90.0, {
      color: "green",
      dynamic: true,
      thickness: 0.2,
    });
    const purpleWall = barTopBottom(5.0, -5.0, wallX, { color: "purple", dynamic: false, thickness: 0.2 });

    const redRadius = rng.uniform(0.3, 0.6);
    return { redRadius, scene: { green_bar: greenBar, purple_wall: purpleWall, basket: cup } };
  },
});
