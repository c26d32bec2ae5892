import { describe, expect, it } from "vitest";
import { isLoopbackRedis, parseRedisUrl, redisLabel } from "./connection.ts";

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
      /--redis: only redis:\/\/ and rediss:\/\/ URLs are supported \(got "http:\/\/:\*\*\*@host:1\/"\)/,
    );
    expect(() => parseRedisUrl("http://:SECRET@host:1", "--redis")).not.toThrow(/SECRET/);
  });

  it("knows a Redis on this machine", () => {
    expect(["redis://127.0.0.1", "redis://localhost:1", "redis://[::1]:6379"].map((u) => isLoopbackRedis(parseRedisUrl(u, "x")))).toEqual([true, true, true]);
    expect(isLoopbackRedis(parseRedisUrl("redis://10.0.0.5", "x"))).toBe(false);
  });
});
