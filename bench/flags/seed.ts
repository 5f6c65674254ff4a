/** Seeds a running Lift with the flags the flag benchmarks serve: 200 flags of every rule type. */
export interface Seeded {
  apiKey: string;
  publicKey: string;
}

export function keysOf(output: string): Seeded {
  const publicKey = /public key:\s+(\S+)/.exec(output)?.[1];
  const apiKey = /project API key:\s+(\S+)/.exec(output)?.[1];
  if (!publicKey || !apiKey) throw new Error(`no keys printed: ${output}`);
  return { apiKey, publicKey };
}

/**
 * 200 flags, as a product team's might be: a fifth plain, the rest with a targeted force rule, a
 * country rollout, or an experiment rule on one of 5 running experiments (and some with all three).
 */
export async function seedFlags(base: string, apiKey: string, count = 200): Promise<void> {
  const headers = { "content-type": "application/json", "x-api-key": apiKey };
  const post = async (url: string, body: unknown, method = "POST") => {
    const res = await fetch(`${base}${url}`, { method, headers, body: JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: string };
  };
  const experiments: string[] = [];
  for (let i = 0; i < 5; i++) {
    const e = await post("/api/experiments", {
      name: `Flag experiment ${i}`,
      targetUrl: "/",
      trafficSplit: 50 + i * 10,
      variants: [{ name: "control" }, { name: "b" }, { name: "c" }],
    });
    await post("/api/experiments", { id: e.id, status: "running" }, "PATCH");
    experiments.push(e.id);
  }
  for (let i = 0; i < count; i++) {
    const force = {
      type: "force",
      condition: { email: { $in: [`qa${i}@example.com`, "ceo@example.com"] } },
      value: true,
    };
    const rollout = {
      type: "rollout",
      condition: { country: { $in: ["FR", "DE", "ES"] }, appVersion: { $vgte: "2.3.0" } },
      value: true,
      coverage: (i % 10) / 10,
    };
    const experiment = {
      type: "experiment",
      experimentId: experiments[i % 5],
      variations: [false, true, true],
    };
    const rules = [[], [force], [rollout], [experiment], [force, rollout, experiment]][i % 5];
    await post("/api/flags", {
      key: `team-${i % 7}.feature-${i}`,
      description: `Feature ${i} of team ${i % 7}`,
      valueType: "boolean",
      defaultValue: false,
      tags: [`team-${i % 7}`],
      rules,
    });
  }
}
