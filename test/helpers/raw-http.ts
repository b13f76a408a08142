/**
 * HTTP/1.1 over a raw socket, for what a client library hides: pipelined requests, the exact bytes
 * of an answer's head, and whether the server closed the connection.
 */
import net from 'node:net';

/** How many final answers `text` holds complete (informational `1xx` heads aside). */
export function answered(text: string, head: boolean): number {
  let n = 0;
  let at = 0;
  for (;;) {
    const end = text.indexOf('\r\n\r\n', at);
    if (end === -1) return n;
    const lines = text.slice(at, end);
    const length = head ? 0 : Number(/content-length: (\d+)/i.exec(lines)?.[1] ?? 0);
    if (text.length < end + 4 + length) return n;
    if (!/^HTTP\/1\.1 1\d\d/.test(lines)) n++;
    at = end + 4 + length;
  }
}

/**
 * Writes `raw` on a new connection and reads `answers` answers (and the close, when `close`); the
 * text (Date lines blanked, bodies as latin1) and whether the server closed the connection.
 */
export function exchange(
  port: number,
  raw: string,
  { answers = 1, close = false, head = false } = {},
): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closed = false;
    const text = () => Buffer.concat(chunks).toString('latin1');
    const check = () => {
      if (answered(text(), head) < answers || (close && !closed)) return;
      clearTimeout(timer);
      sock.destroy();
      resolve({ text: text().replace(/Date: [^\r]*\r\n/g, 'Date: -\r\n'), closed });
    };
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`no ${answers} answer(s) in 5 s: ${JSON.stringify(text())}`));
    }, 5000);
    sock.on('connect', () => sock.write(raw));
    sock.on('data', (c) => {
      chunks.push(c);
      check();
    });
    sock.on('end', () => {
      closed = true;
      check();
    });
    sock.on('error', reject);
  });
}
