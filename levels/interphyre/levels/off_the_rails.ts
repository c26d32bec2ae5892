import { defineLevel } from "./define-level.ts";
import { ball, barEnds, barFromCorner, basket } from "../objects.ts";

const GREEN_R = 0.4;
const BASKET_SCALE = 1.0;
const RAD = Math.PI / 180;

/** Causal chain: the red ball tips or knocks the gray basket so the green ball spills out, rolls down the V and comes to rest against the purple slope. */
export default defineLevel({
  id: "off_the_rails",
  goal: ["green_ball", "purple_wall"],
  description:
    "Two static 10-long bars meet at a corner on the bottom edge of the world and form a V: a purple bar " +
    "rising to the right and a black bar rising to the left. A dynamic gray basket (scale 1), tilted parallel to " +
    "the black slope, starts above that slope near the top left with a dynamic green ball (r 0.4) inside it; " +
    "both fall when the simulation starts. Goal: the green ball touches the purple wall for 3 seconds.",
  generate: (rng) => {
    const rightAngle = rng.uniform(10, 50);
    const barAngle = rng.uniform(75, 105);
    const leftAngleRaw = rightAngle - barAngle;
    const leftAngle = 180 - Math.abs(leftAngleRaw);
    let cornerX = rng.uniform(0.2, 0.6) * 10 - 5;

    const walls = (cx: number) => ({
      purple: barFromCorner(cx, -5, rightAngle, 10, { color: "purple", dynamic: false }),
      black: barFromCorner(cx, -5, leftAngle, 10, { color: "black", dynamic: false }),
    });
    let v = walls(cornerX);
    let offset = 0.0;
    if (barEnds(v.purple).right < 5) offset = 5 - barEnds(v.purple).right;
    else if (barEnds(v.black).left > -5) offset = -5 - barEnds(v.black).left;
    if (offset !== 0.0) {
      cornerX += offset;
      v = walls(cornerX);
    }

    const basketTop = 5 - rng.uniform(0.06, 0.14) * 10;
    const xOnWall = cornerX + (basketTop - BASKET_SCALE * 2 + 5) / Math.tan(leftAngle * RAD);
    let basketX = Math.max(xOnWall, -5 + BASKET_SCALE + 0.5);
    const basketY = basketTop - BASKET_SCALE;
    let greenX = basketX;
    if (greenX + GREEN_R + 2.0 > cornerX) {
      greenX = cornerX - 2.0 - GREEN_R;
      basketX = greenX;
    }

    const redRadius = rng.uniform(0.3, 0.6);
    return {
      redRadius,
      scene: {
        green_ball: ball(greenX, basketY + GREEN_R + 0.1, GREEN_R, { color: "green" }),
        purple_wall: v.purple,
        black_wall: v.black,
        basket: basket(basketX, basketY, BASKET_SCALE, { color: "gray", angle: leftAngleRaw }),
      },
    };
  },
});
