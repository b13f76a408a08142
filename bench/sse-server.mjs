// The bare baseline of the SSE bench (bench/sse.mjs): node:http answering every request with one
// event and then heartbeats every 15 s, as a kept-open Mockyard stream does.
import http from 'node:http';

const server = http.createServer((req, res) => {
  if (req.url === '/ping') {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '4' });
    return res.end('pong');
  }
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.write('data: hello\n\n');
  const beat = setInterval(() => res.write(':\n\n'), 15_000);
  res.on('close', () => clearInterval(beat));
});
server.keepAliveTimeout = 5000;
server.listen(Number(process.env.PORT ?? 18480), '127.0.0.1', () => process.stdout.write('ready\n'));
