/**
 * A small GIF reader for tests: walks the block structure, undoes LZW and composites each frame onto the
 * previous one (disposal "none" or "unspecified" — the only ones hexa writes), so that a test can check the
 * frame count, the delays and what a viewer would actually show.
 */

export interface DecodedGif {
  width: number;
  height: number;
  /** Loop count from the NETSCAPE extension (0 = forever); undefined when absent. */
  loop: number | undefined;
  frames: { delayCs: number; rgba: Uint8Array }[];
}

const lzwDecode = (minCodeSize: number, data: Uint8Array, pixels: number): Uint8Array => {
  const out = new Uint8Array(pixels);
  const clear = 1 << minCodeSize;
  const end = clear + 1;
  let size = minCodeSize + 1;
  let dict: number[][] = [];
  const reset = () => {
    dict = [];
    for (let i = 0; i < clear; i++) dict.push([i]);
    dict.push([], []);
    size = minCodeSize + 1;
  };
  reset();
  let prev: number[] | undefined;
  let n = 0;
  let bits = 0;
  let acc = 0;
  for (let i = 0; i < data.length && n < pixels; ) {
    while (bits < size && i < data.length) {
      acc |= data[i++]! << bits;
      bits += 8;
    }
    if (bits < size) break;
    const code = acc & ((1 << size) - 1);
    acc >>>= size;
    bits -= size;
    if (code === clear) {
      reset();
      prev = undefined;
      continue;
    }
    if (code === end) break;
    let entry: number[];
    if (code < dict.length) entry = dict[code]!;
    else if (prev !== undefined && code === dict.length) entry = [...prev, prev[0]!];
    else throw new Error(`bad LZW code ${code}`);
    for (const v of entry) if (n < pixels) out[n++] = v;
    if (prev !== undefined && dict.length < 4096) {
      dict.push([...prev, entry[0]!]);
      if (dict.length === 1 << size && size < 12) size++;
    }
    prev = entry;
  }
  return out;
};

export const decodeGif = (bytes: Uint8Array): DecodedGif => {
  const header = String.fromCharCode(...bytes.subarray(0, 6));
  if (header !== "GIF89a" && header !== "GIF87a") throw new Error(`not a GIF (header ${JSON.stringify(header)})`);
  const u16 = (p: number) => bytes[p]! | (bytes[p + 1]! << 8);
  const width = u16(6);
  const height = u16(8);
  const fields = bytes[10]!;
  let pos = 13;
  let global: Uint8Array | undefined;
  if (fields & 0x80) {
    const n = 3 << ((fields & 7) + 1);
    global = bytes.subarray(pos, pos + n);
    pos += n;
  }
  const subBlocks = (): Uint8Array => {
    const parts: number[] = [];
    for (let len = bytes[pos++]!; len !== 0; len = bytes[pos++]!) {
      parts.push(...bytes.subarray(pos, pos + len));
      pos += len;
    }
    return Uint8Array.from(parts);
  };
  const canvas = new Uint8Array(width * height * 4);
  const frames: DecodedGif["frames"] = [];
  let loop: number | undefined;
  let gce = { delayCs: 0, transparent: -1 };
  for (;;) {
    const block = bytes[pos++];
    if (block === 0x3b) break;
    if (block === 0x21) {
      const label = bytes[pos++]!;
      const body = subBlocks();
      if (label === 0xf9) gce = { delayCs: body[1]! | (body[2]! << 8), transparent: body[0]! & 1 ? body[3]! : -1 };
      if (label === 0xff && String.fromCharCode(...body.subarray(0, 11)) === "NETSCAPE2.0") loop = body[12]! | (body[13]! << 8);
      continue;
    }
    if (block !== 0x2c) throw new Error(`unexpected block 0x${block?.toString(16)} at byte ${pos - 1}`);
    const [left, top, w, h] = [u16(pos), u16(pos + 2), u16(pos + 4), u16(pos + 6)];
    const packed = bytes[pos + 8]!;
    pos += 9;
    let table = global;
    if (packed & 0x80) {
      const n = 3 << ((packed & 7) + 1);
      table = bytes.subarray(pos, pos + n);
      pos += n;
    }
    if (packed & 0x40) throw new Error("interlaced frames are not supported");
    const minCodeSize = bytes[pos++]!;
    const index = lzwDecode(minCodeSize, subBlocks(), w * h);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const v = index[y * w + x]!;
        if (v === gce.transparent) continue;
        const p = ((top + y) * width + left + x) * 4;
        canvas.set([table![v * 3]!, table![v * 3 + 1]!, table![v * 3 + 2]!, 255], p);
      }
    }
    frames.push({ delayCs: gce.delayCs, rgba: canvas.slice() });
    gce = { delayCs: 0, transparent: -1 };
  }
  return { width, height, loop, frames };
};
