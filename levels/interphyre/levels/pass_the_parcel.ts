import { defineLevel } from "./define-level.ts";
import { ball, bar, barEnds, barFromEndpoints, basket, pyRound } from "../objects.ts";

const round2 = (v: number): number => pyRound(v, 2);

/** Causal chain: the cup is knocked off the green ball, which rolls off the platform into the blue ball's basket. */
export default defineLevel({
  id: "pass_the_parcel",
  goal: ["green_ball", "blue_ball"],
  description:
    "A dynamic gray basket with a blue ball inside stands on the floor at the left. Above it to the right, a " +
    "static black platform runs to the right wall, and at its left end a small dynamic gray basket sits upside " +
    "down over a green ball; a static black ramp rises from the platform's middle to the right wall or the " +
    "ceiling. Goal: the green ball touches the blue ball for 3 seconds.",
  generate: (rng) => {
    const bottomScale = rng.uniform(0.7, 1.0);
    const bottomX = rng.uniform(-2.5, 0.0);
    const barOffset = rng.uniform(1.0, 2.0);
    const platformY = bottomX > -1.0 ? rng.uniform(-1.0, 1.0) : rng.uniform(-1.0, 1.5);

    const look = { color: "gray", wallThickness: 0.15 } as const;
    const bottomBasket = basket(bottomX, -4.6, bottomScale, look);
    const blueRadius = round2(0.25 + bottomScale / 8);

    let platformLeft = bottomX - bottomBasket.bottom_width / 2 - bottomBasket.wall_thickness + barOffset;
    let platform = bar((platformLeft + 5) / 2, platformY, 5 - platformLeft, 0, { color: "black", dynamic: false });
    const topBasket = basket(0, 0, 0.6, { ...look, angle: 180, anchor: "top_center" });
    const greenRadius = 0.25;
    if (barEnds(platform).left < -2.0) {
      platformLeft = -1.5;
      platform = { ...platform, x: (platformLeft + 5) / 2, length: 5 - platformLeft };
    }
    const topX = barEnds(platform).left + topBasket.top_width / 2 + topBasket.wall_thickness;

    const rampAngle = rng.uniform(30, 70);
    const a = (rampAngle * Math.PI) / 180;
    const rampLength = Math.min((5 - platform.x) / Math.cos(a), (5 - platformY) / Math.sin(a));
    const ramp = barFromEndpoints(platform.x, platformY, platform.x + rampLength * Math.cos(a), platformY + rampLength * Math.sin(a), {
      color: "black",
      dynamic: false,
    });

    const redRadius = rng.uniform(0.5, 0.8);
    rng.uniform(-4.5, 4.5);
    rng.uniform(2.0, 4.5);
    return {
      redRadius,
      scene: {
        green_ball: ball(topX, platformY + platform.thickness + greenRadius, greenRadius, { color: "green" }),
        blue_ball: ball(bottomX, bottomBasket.y + blueRadius + 0.2, blueRadius, { color: "blue" }),
        ramp,
        top_basket: { ...topBasket, x: topX, y: platformY + platform.thickness },
        bottom_basket: bottomBasket,
        black_platform: platform,
      },
    };
  },
});
