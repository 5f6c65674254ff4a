import { type LoadResult, cpuSeconds, load } from "../lib/servers.js";

/** One request format of an ingest comparison: where it goes and the bodies it sends. */
export interface Format {
  name: string;
  url: string;
  body: () => string;
  headers: Record<string, string>;
}

export interface FormatRounds {
  /** each format's loads, one a round, in the formats' order */
  got: LoadResult[][];
  /** each format's events per second of the server's CPU, one a round */
  perCpu: number[][];
  /** requests each format's server acknowledged (2xx), warm-up included */
  acknowledged: Map<string, number>;
  /** bytes per event of each format's body */
  bytes: string[];
}

/**
 * The formats against one server in rounds that rotate which goes first (load drifts during a
 * run), after a 2 s warm-up each; any answer that is not 2xx fails the run. The server's own CPU
 * time per load (`/proc`) gives events per CPU second, steadier than events/s on a shared machine.
 */
export async function runFormatRounds(
  formats: Format[],
  o: { pid: number; rounds: number; seconds: number; connections: number; perRequest: number },
): Promise<FormatRounds> {
  const acknowledged = new Map<string, number>();
  const run = async (f: Format, seconds: number) => {
    const res = await load({
      url: f.url,
      connections: o.connections,
      seconds,
      body: f.body,
      headers: () => f.headers,
    });
    acknowledged.set(f.name, (acknowledged.get(f.name) ?? 0) + res.ok);
    return res;
  };
  const bytes = formats.map((f) => (Buffer.byteLength(f.body()) / o.perRequest).toFixed(0));
  for (const f of formats) await run(f, 2);
  const got: LoadResult[][] = formats.map(() => []);
  const perCpu: number[][] = formats.map(() => []);
  for (let r = 0; r < o.rounds; r++) {
    for (let k = 0; k < formats.length; k++) {
      const i = (r + k) % formats.length;
      const cpu = cpuSeconds(o.pid);
      const res = await run(formats[i]!, o.seconds);
      if (res.non2xx > 0) throw new Error(`${formats[i]!.name}: ${res.non2xx} non-2xx responses`);
      got[i]!.push(res);
      perCpu[i]!.push((res.rps * o.seconds * o.perRequest) / (cpuSeconds(o.pid) - cpu));
    }
  }
  return { got, perCpu, acknowledged, bytes };
}
