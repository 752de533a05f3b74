// A loopback stand-in for an OpenAI-compatible chat completions endpoint, enough for Qwen Code
// (`--auth-type openai --openai-base-url`) to run a scripted task: `POST .../chat/completions`
// (streamed as SSE when asked, else one JSON answer) answers with a `run_shell_command` call
// while the latest message is a user prompt that names a command (`run: CMD`), with text once
// the call's result came back, and with a `<state_snapshot>` when the client asks for a
// compression summary; its usage is the request's characters / 4. Every request is appended
// to $STANDIN_LOG (one JSON line each) so a test can see what the client sent.
// Usage: node scripts/dev/qwen_standin.mjs PORT_FILE   (writes the port it listens on there)
import http from 'node:http';
import fs from 'node:fs';

const portFile = process.argv[2];
const log = process.env.STANDIN_LOG;
let calls = 0;

function text(content) {
  if (typeof content === 'string') return content;
  return (content ?? []).map((p) => p.text ?? '').join('');
}

function reply(body) {
  const messages = body.messages ?? [];
  const prompt = Math.ceil(JSON.stringify(messages).length / 4);
  const last = messages.at(-1) ?? {};
  const usage = { prompt_tokens: prompt, completion_tokens: 12, total_tokens: prompt + 12 };
  if (last.role === 'tool') {
    const out = text(last.content).slice(0, 200);
    return { content: `The command finished. It printed: ${out}`, usage };
  }
  const said = text(last.content);
  // Only the main agent runs commands (not the memory or title side requests).
  const agent = text(messages[0]?.content).startsWith('You are Qwen Code');
  if (said.includes('summarizes a conversation when its context window')) {
    return { content: '<state_snapshot>The user inspected a scratch project (notes.txt, long.txt) with shell commands.</state_snapshot>', usage };
  }
  const command = agent && last.role === 'user' ? /run: (.+)$/m.exec(said)?.[1] : undefined;
  if (command) {
    calls += 1;
    const call = {
      id: `call_standin_${Date.now()}_${calls}`,
      type: 'function',
      function: { name: 'run_shell_command', arguments: JSON.stringify({ command, description: 'stand-in', is_background: false }) },
    };
    return { tool_calls: [call], usage };
  }
  return { content: `Understood: ${said.slice(0, 120)}`, usage };
}

function answer(res, body, r) {
  const id = `chatcmpl-standin-${Date.now()}`;
  const model = body.model ?? 'qwen-standin';
  const created = Math.floor(Date.now() / 1000);
  const finish = r.tool_calls ? 'tool_calls' : 'stop';
  if (!body.stream) {
    const message = { role: 'assistant', content: r.content ?? null, ...(r.tool_calls ? { tool_calls: r.tool_calls } : {}) };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: finish }], usage: r.usage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta, finish_reason = null, usage) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason }], ...(usage ? { usage } : {}) })}\n\n`;
  let out = chunk({ role: 'assistant', content: '' });
  if (r.tool_calls) {
    out += chunk({ tool_calls: r.tool_calls.map((c, index) => ({ index, ...c })) });
  } else {
    out += chunk({ content: r.content });
  }
  out += chunk({}, finish, r.usage);
  out += 'data: [DONE]\n\n';
  res.end(out);
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
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'qwen-standin', object: 'model' }] }));
      return;
    }
    answer(res, body, reply(body));
  });
});
server.listen(0, '127.0.0.1', () => {
  fs.writeFileSync(portFile, String(server.address().port));
});
