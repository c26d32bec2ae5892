import { describe, expect, it } from "vitest";
import { loopbackAddress, parseRedisUrl, redisLabel } from "./connection.ts";

describe("parseRedisUrl", () => {
  it("reads a password, a user and TLS from the URL, and labels it without the password", () => {
    const c = parseRedisUrl("rediss://hexa:p%40ss@redis.example:6380/2", "--redis");
    expect(c).toEqual({
      host: "redis.example",
      port: 6380,
      db: 2,
      username: "hexa",
      password: "p@ss",
      tls: { servername: "redis.example" },
      maxRetriesPerRequest: null,
    });
    expect(redisLabel(c)).toBe("rediss://redis.example:6380/2");
    expect(parseRedisUrl("redis://:pw@127.0.0.1", "--redis")).toMatchObject({ host: "127.0.0.1", port: 6379, password: "pw" });
    expect(parseRedisUrl("redis://127.0.0.1", "--redis")).not.toHaveProperty("tls");
  });

  it("takes the password given beside the URL (HEXA_REDIS_PASSWORD) only when the URL names none", () => {
    expect(parseRedisUrl("redis://10.0.0.5:6379", "--redis", "from-env").password).toBe("from-env");
    expect(parseRedisUrl("redis://:in-url@10.0.0.5:6379", "--redis", "from-env").password).toBe("in-url");
  });

  it("refuses other schemes without echoing a password", () => {
    expect(() => parseRedisUrl("http://:SECRET@host:1", "--redis")).toThrow(
      /--redis: only redis:\/\/ and rediss:\/\/ URLs are supported \(got "http:\/\/\*\*\*@host:1"\)/,
    );
    expect(() => parseRedisUrl("http://:SECRET@host:1", "--redis")).not.toThrow(/SECRET/);
  });

  it("never prints a password, whatever characters it holds", () => {
    for (const url of [
      "redis://:pa/ss@10.0.0.5:6379",
      "redis://:se#cr?et@10.0.0.5:6379",
      "redis://user:p/w@h:1/0",
      "redis://:abc/0@10.0.0.5",
      "rediss://:a@b/c@host",
    ]) {
      let message = "";
      try {
        parseRedisUrl(url, "--redis");
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message, url).toMatch(/^--redis: /);
      for (const secret of ["pa/ss", "se#cr?et", "p/w", "abc/0", "a@b/c"]) expect(message).not.toContain(secret);
    }
  });
});

describe("loopbackAddress", () => {
  const resolver = (table: Record<string, string[]>) => async (host: string) => {
    if (!table[host]) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
    return table[host];
  };
  const at = (url: string, table: Record<string, string[]> = {}) => loopbackAddress(parseRedisUrl(url, "x"), resolver(table));

  it("takes an address of 127.0.0.0/8 or ::1, and a name that resolves to such addresses only", async () => {
    expect(await at("redis://127.0.0.1")).toBe("127.0.0.1");
    expect(await at("redis://127.8.9.10:1")).toBe("127.8.9.10");
    expect(await at("redis://[::1]:6379")).toBe("::1");
    expect(await at("redis://localhost:1", { localhost: ["127.0.0.1", "::1"] })).toBe("127.0.0.1");
  });

  it("refuses a name by where it resolves, not by how it starts, and a name that does not resolve", async () => {
    expect(await at("redis://127.0.0.1.nip.example:6379", { "127.0.0.1.nip.example": ["10.0.0.5"] })).toBeUndefined();
    expect(await at("redis://127.0.0.1.example:6379", { "127.0.0.1.example": ["127.0.0.1", "203.0.113.9"] })).toBeUndefined();
    expect(await at("redis://127.0.0.1.invalid:6379")).toBeUndefined();
    expect(await at("redis://10.0.0.5")).toBeUndefined();
  });
});
