// A bare `ws` echo server: the reference the WebSocket bench compares Mockyard's echo rule with.
import { WebSocketServer } from 'ws';

const port = Number(process.env.PORT ?? 18380);
const wss = new WebSocketServer({ port, host: '127.0.0.1', perMessageDeflate: false });
wss.on('connection', (ws) => ws.on('message', (m) => ws.send(`you said ${m}`)));
wss.on('listening', () => process.stdout.write('listening\n'));
