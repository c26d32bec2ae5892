// The page that draws a MuJoCo episode's frames with three.js (docs/spec/reward-search.md §2, frames). It runs in
// headless chromium (episode-frames.ts serves it with three.js from node_modules, nothing from the network), gets
// the scene once (frame-scene.ts) and then, per output frame, the body poses and camera of the source steps to
// draw. It keeps the last TRAIL_LOOKBACK source frames' pixels for the motion trail.
import * as THREE from "three";

const GEOM = { plane: 0, sphere: 2, capsule: 3, ellipsoid: 4, cylinder: 5, box: 6 };
/** Prompt-to-Policy's motion trail (p2p/inference/motion_overlay.py): lookback, peak opacity, difference scale. */
const TRAIL_LOOKBACK = 40;
const TRAIL_BASE_ALPHA = 0.4;
const TRAIL_DIFF_SCALE = 30;
/** Half-size [m] of a plane MuJoCo calls infinite (size 0), and the floor's checker square. */
const INFINITE_PLANE = 50;
const CHECK = 0.5;

/** A plane's checker: two shades of its colour, one square per CHECK metres. */
const checkerTexture = (rgba, half) => {
  const light = rgba.slice(0, 3).map((c) => Math.round(255 * 0.8 * c));
  const dark = rgba.slice(0, 3).map((c) => Math.round(255 * 0.15 * c));
  const px = new Uint8Array([...light, 255, ...dark, 255, ...dark, 255, ...light, 255]);
  const tex = new THREE.DataTexture(px, 2, 2, THREE.RGBAFormat);
  tex.colorSpace = THREE.SRGBColorSpace;
  tex.magFilter = THREE.NearestFilter;
  tex.wrapS = tex.wrapT = THREE.RepeatWrapping;
  tex.repeat.set(half[0] / CHECK, half[1] / CHECK);
  tex.needsUpdate = true;
  return tex;
};

const geometryOf = (g) => {
  const [a, b, c] = g.size;
  switch (g.type) {
    case GEOM.sphere:
      return new THREE.SphereGeometry(a, 32, 16);
    case GEOM.capsule:
      return new THREE.CapsuleGeometry(a, 2 * b, 8, 24).rotateX(Math.PI / 2);
    case GEOM.cylinder:
      return new THREE.CylinderGeometry(a, a, 2 * b, 24).rotateX(Math.PI / 2);
    case GEOM.box:
      return new THREE.BoxGeometry(2 * a, 2 * b, 2 * c);
    case GEOM.ellipsoid:
      return new THREE.SphereGeometry(1, 32, 16).scale(a, b, c);
    default:
      throw new Error(`geom type ${g.type} is not drawn`);
  }
};

/** MuJoCo's geom_size for a plane: x and y half-sizes, 0 for infinite. */
const planeHalf = (g) => [g.size[0] || INFINITE_PLANE, g.size[1] || INFINITE_PLANE];

const meshOf = (g) => {
  const color = new THREE.Color().setRGB(g.rgba[0], g.rgba[1], g.rgba[2], THREE.SRGBColorSpace);
  const transparent = g.rgba[3] < 1;
  if (g.type === GEOM.plane) {
    const half = planeHalf(g);
    const mesh = new THREE.Mesh(
      new THREE.PlaneGeometry(2 * half[0], 2 * half[1]),
      new THREE.MeshPhongMaterial({ map: checkerTexture(g.rgba, half), shininess: 10 }),
    );
    mesh.receiveShadow = true;
    return mesh;
  }
  const mesh = new THREE.Mesh(geometryOf(g), new THREE.MeshPhongMaterial({ color, shininess: 30, transparent, opacity: g.rgba[3] }));
  mesh.castShadow = true;
  mesh.receiveShadow = true;
  return mesh;
};

/** One group per body, each holding its geoms at their local poses; MuJoCo quats are (w, x, y, z). */
const bodiesOf = (scene, world) => {
  const bodies = Array.from({ length: scene.nbody }, () => new THREE.Group());
  for (const b of bodies) world.add(b);
  for (const g of scene.geoms) {
    const mesh = meshOf(g);
    mesh.position.set(...g.pos);
    mesh.quaternion.set(g.quat[1], g.quat[2], g.quat[3], g.quat[0]);
    bodies[g.body].add(mesh);
  }
  return bodies;
};

/** MuJoCo's headlight and a light from above, as the shipped models' top light; its shadow follows the camera's target. */
const lightsOf = (world) => {
  world.add(new THREE.AmbientLight(0xffffff, 0.6));
  const sun = new THREE.DirectionalLight(0xffffff, 2.2);
  sun.castShadow = true;
  sun.shadow.mapSize.set(1024, 1024);
  Object.assign(sun.shadow.camera, { left: -4, right: 4, top: 4, bottom: -4, near: 0.1, far: 20 });
  world.add(sun, sun.target);
  const head = new THREE.DirectionalLight(0xffffff, 0.8);
  world.add(head, head.target);
  return { sun, head };
};

const setup = (scene) => {
  const size = scene.size;
  const canvas = document.createElement("canvas");
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  renderer.setSize(size, size, false);
  renderer.shadowMap.enabled = true;
  const world = new THREE.Scene();
  world.background = new THREE.Color().setRGB(0.3, 0.36, 0.44, THREE.SRGBColorSpace);
  const camera = new THREE.PerspectiveCamera(scene.camera.fovy, 1, 0.01, 100);
  camera.up.set(0, 0, 1);
  const copy = document.createElement("canvas");
  copy.width = copy.height = size;
  const ctx = copy.getContext("2d", { willReadFrequently: true });
  return { size, renderer, world, camera, bodies: bodiesOf(scene, world), lights: lightsOf(world), copy, ctx, ring: new Map() };
};

/** Draw one source step: body poses, camera, lights; its pixels (top row first) stay in the 2-D canvas. */
const draw = (r, s) => {
  r.bodies.forEach((b, i) => {
    b.position.set(s.xpos[3 * i], s.xpos[3 * i + 1], s.xpos[3 * i + 2]);
    b.quaternion.set(s.xquat[4 * i + 1], s.xquat[4 * i + 2], s.xquat[4 * i + 3], s.xquat[4 * i]);
  });
  r.camera.position.set(...s.eye);
  r.camera.lookAt(...s.target);
  r.lights.sun.target.position.set(...s.target);
  r.lights.sun.position.set(s.target[0] + 1.5, s.target[1] - 2, s.target[2] + 5);
  r.lights.head.position.set(...s.eye);
  r.lights.head.target.position.set(...s.target);
  r.renderer.render(r.world, r.camera);
  r.ctx.drawImage(r.renderer.domElement, 0, 0);
};

/**
 * Prompt-to-Policy's _blend_trail: the previous source frames blended onto the base, oldest first, opacity
 * ramping to TRAIL_BASE_ALPHA, each pixel weighted by its mean RGB difference from the running result / 30.
 */
const blendTrail = (base, subs) => {
  const n = subs.length;
  const out = new Float32Array(base.length);
  for (let p = 0; p < base.length; p++) out[p] = base[p];
  subs.forEach((sf, j) => {
    const alpha = TRAIL_BASE_ALPHA * ((j + 1) / n);
    for (let p = 0; p < out.length; p += 4) {
      const diff = (Math.abs(sf[p] - out[p]) + Math.abs(sf[p + 1] - out[p + 1]) + Math.abs(sf[p + 2] - out[p + 2])) / 3;
      const a = Math.min(1, diff / TRAIL_DIFF_SCALE) * alpha;
      if (a === 0) continue;
      for (let k = p; k < p + 3; k++) out[k] = out[k] * (1 - a) + sf[k] * a;
    }
  });
  const px = new Uint8ClampedArray(base.length);
  for (let p = 0; p < px.length; p++) px[p] = p % 4 === 3 ? 255 : Math.trunc(out[p]);
  return px;
};

const trailPng = (r, index) => {
  const subs = [];
  for (let k = Math.max(0, index - TRAIL_LOOKBACK); k < index; k++) {
    const px = r.ring.get(k);
    if (!px) throw new Error(`source frame ${k} was not drawn before frame ${index}`);
    subs.push(px);
  }
  if (subs.length === 0) return r.copy.toDataURL("image/png");
  const blended = blendTrail(r.ring.get(index), subs);
  r.ctx.putImageData(new ImageData(blended, r.size, r.size), 0, 0);
  return r.copy.toDataURL("image/png");
};

let renderer = null;

window.hexaFrames = {
  init(scene) {
    renderer = setup(scene);
    return renderer.renderer.getContext().getParameter(WebGL2RenderingContext.VERSION);
  },
  /** Draw the given source steps in order; the last is the output frame. Returns its PNG, and its trail's when asked. */
  frame({ sources, trail }) {
    const r = renderer;
    for (const s of sources) {
      draw(r, s);
      if (trail) r.ring.set(s.index, r.ctx.getImageData(0, 0, r.size, r.size).data);
    }
    const last = sources[sources.length - 1].index;
    for (const k of r.ring.keys()) if (k < last - TRAIL_LOOKBACK) r.ring.delete(k);
    const png = r.copy.toDataURL("image/png");
    return { png, trail: trail ? trailPng(r, last) : null };
  },
};
