import { createHash } from "node:crypto";
import { createInstance } from "../../levels/interphyre/instance.ts";
import { Simulation } from "../../levels/interphyre/world/simulation.ts";

/** A digest of every body's exact state at every step: equal digests mean bit-identical trajectories. */
export const trajectoryDigest = (level: string, seed: number, action: { x: number; y: number; radius: number }, steps: number) => {
  const sim = new Simulation({ ...createInstance(level, seed), action });
  const hash = createHash("sha256");
  const buf = new Float64Array(6);
  for (let s = 0; s < steps; s++) {
    sim.step();
    for (const name of sim.engine.names()) {
      const b = sim.engine.state(name);
      buf.set([b.x, b.y, b.angle, b.vx, b.vy, b.angularVelocity]);
      hash.update(name).update(new Uint8Array(buf.buffer));
    }
  }
  return hash.digest("hex");
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const [level, seed, x, y, r, steps] = process.argv.slice(2);
  process.stdout.write(trajectoryDigest(level!, Number(seed), { x: Number(x), y: Number(y), radius: Number(r) }, Number(steps)));
}
