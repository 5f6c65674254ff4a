/**
 * The clients of bench/flags/streams.bench.ts, in a process of their own (so the server's memory is
 * measured alone): opens STREAMS event streams on URL and prints `events <n>` whenever the number
 * of streams that have received at least n `features` events reaches all of them.
 */
import http from "node:http";

const url = process.env.URL!;
const n = Number(process.env.STREAMS ?? 1000);
const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
const counts: number[] = [];
let reported = 0;

function check() {
  const least = Math.min(...counts);
  if (counts.length === n && least > reported) {
    reported = least;
    console.log(`events ${least}`);
  }
}

for (let i = 0; i < n; i++) {
  counts.push(0);
  await new Promise<void>((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream ${i}: ${res.statusCode}`));
      res.setEncoding("utf8");
      let tail = "";
      res.on("data", (chunk: string) => {
        const text = tail + chunk;
        counts[i]! += text.split("event: features\n").length - 1;
        tail = text.slice(-20);
        check();
      });
      resolve();
    });
    req.on("error", reject);
  });
}
check();
