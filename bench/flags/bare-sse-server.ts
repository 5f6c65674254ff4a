/**
 * Baseline of the stream benchmark: a bare Node HTTP server holding event streams open and writing
 * one `features` event (BARE_EVENT bytes) to all of them on POST /push — what a connection costs
 * in Node itself, without Lift.
 */
import { createServer, type ServerResponse } from "node:http";

const event = Buffer.from(`event: features\ndata: ${process.env.BARE_EVENT ?? "{}"}\n\n`);
const streams = new Set<ServerResponse>();
const server = createServer((req, res) => {
  if (req.url === "/healthz") return void res.end('{"status":"ok"}');
  if (req.method === "POST" && req.url === "/push") {
    for (const s of streams) s.write(event);
    return void res.end(String(streams.size));
  }
  if (req.url === "/metrics") {
    const m = process.memoryUsage();
    return void res.end(
      `process_resident_memory_bytes ${m.rss}\nnodejs_heap_size_used_bytes ${m.heapUsed}\nlift_flag_streams ${streams.size}\n`,
    );
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.write(event);
  streams.add(res);
  res.once("close", () => streams.delete(res));
});
server.listen(Number(process.env.PORT), "127.0.0.1");
