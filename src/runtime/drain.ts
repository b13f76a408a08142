/** Reading an unwanted request body to its end, so that an answer sent after it reaches the client. */
import type { IncomingMessage } from 'node:http';

/** Reads and discards `req`'s body; resolves true when it ended within `maxBytes`. */
export function drain(req: IncomingMessage, maxBytes: number): Promise<boolean> {
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (ended: boolean) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onError = () => finish(false);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.resume();
  });
}
