// A loopback stand-in for the Gemini API, enough for Gemini CLI to run a scripted task:
// `streamGenerateContent` (SSE) and `generateContent` answer with a tool call while the latest
// user turn is a prompt that names a command (`run: CMD`), and with text once the call's
// result came back; `countTokens` counts characters / 4. Every request is appended to
// $STANDIN_LOG (one JSON line each) so a test can see what the client sent.
// Usage: node scripts/dev/gemini_standin.mjs PORT_FILE   (writes the port it listens on there)
import http from 'node:http';
import fs from 'node:fs';

const portFile = process.argv[2];
const log = process.env.STANDIN_LOG;

function lastUserText(contents) {
  const last = contents.at(-1) ?? { parts: [] };
  return (last.parts ?? []).map((p) => p.text ?? '').join('');
}

function reply(body) {
  const contents = body.contents ?? [];
  const chars = JSON.stringify(contents).length;
  const last = contents.at(-1) ?? { parts: [] };
  const answered = (last.parts ?? []).some((p) => p.functionResponse);
  const text = lastUserText(contents);
  const command = /run: (.+)$/m.exec(text)?.[1];
  let parts;
  if (!answered && command) {
    parts = [{ functionCall: { name: 'run_shell_command', args: { command, description: 'stand-in' } } }];
  } else if (answered) {
    const out = JSON.stringify(last.parts[0].functionResponse.response).slice(0, 200);
    parts = [{ text: `The command finished. It printed: ${out}` }];
  } else {
    parts = [{ text: `Understood: ${text.slice(0, 120)}` }];
  }
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: Math.ceil(chars / 4),
      candidatesTokenCount: 12,
      totalTokenCount: Math.ceil(chars / 4) + 12,
    },
    modelVersion: 'gemini-2.5-flash',
  };
}

const server = http.createServer((req, res) => {
  let data = '';
  req.on('data', (c) => (data += c));
  req.on('end', () => {
    let body = {};
    try {
      body = JSON.parse(data || '{}');
    } catch {}
    if (log) fs.appendFileSync(log, JSON.stringify({ url: req.url, body }) + '\n');
    if (req.url.includes(':countTokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totalTokens: Math.ceil(data.length / 4) }));
      return;
    }
    const answer = reply(body);
    if (req.url.includes(':streamGenerateContent')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify(answer)}\r\n\r\n`);
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  fs.writeFileSync(portFile, String(server.address().port));
});
