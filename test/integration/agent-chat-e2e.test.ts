/**
 * Talking with a language model end to end (docs/agent.md): `chorus serve` with a scripted OneBot
 * account over a real WebSocket, the console over real HTTP, and the stand-in model server on
 * 127.0.0.1. Addressed, the bot says the model's text; a message the repeater answers never
 * reaches the model; a spent member budget stops calls and the Why page says so; the model down
 * (HTTP 500, slower than the deadline, the server gone) costs the chat nothing; 「不可以」 on a model
 * reply stops that text in the group; and no QQ number is in any request the model received.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { RepeaterDecision } from '../../src/repeater/index.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { FAST_REPLIES, save, sleep, startControlsService } from '../support/controls-service.ts';
import { startModelStandIn } from '../support/model-stand-in.ts';

const BOT = 64_013_001;
const GROUP = 73_104_411;
const QUIET = 73_104_412;
const ALICE = 88_100_201;
const BOB = 88_100_202;
const CAROL = 88_100_203;
const MEMBER_CALLS = 4;

async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await sleep(10);
  }
}

it(
  'answers with the model when addressed, within its bounds, never in place of the repeater',
  { timeout: 120_000 },
  async (t) => {
    const model = await startModelStandIn();
    t.after(() => model.close());
    const s = await startControlsService(t, {
      ...FAST_REPLIES,
      CHORUS_REPEATER_NICKNAMES: '小合',
      CHORUS_LLM_BASE_URL: model.baseUrl,
      CHORUS_LLM_API_KEY: 'sk-stand-in-secret',
      CHORUS_LLM_MODEL: 'stand-in-chat',
      CHORUS_LLM_TIMEOUT_SEC: '1',
      CHORUS_LLM_MEMBER_DAILY_CALLS: String(MEMBER_CALLS),
      CHORUS_LLM_SILENCE_RATE: '1',
    });
    const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${s.port}/onebot/v11/ws`, selfId: BOT });
    t.after(() => peer.close().catch(() => undefined));
    const say = (userId: number, message: string, groupId = GROUP, nickname = `member${userId % 10}`) =>
      peer.groupMessage({ groupId, userId, message, nickname });
    const agentOn = (messageId: number) =>
      until(`the model path on ${messageId}`, () =>
        s.decisions.find((d) => d.messageId === messageId && d.reason.startsWith('agent-chat')),
      );
    const sentTexts = () => peer.sent.map((m) => m.message);

    // Some chat first (with a mention of another member), then Alice addresses the bot by @.
    await s.decided(say(BOB, '今天食堂的红烧肉不错'));
    await s.decided(say(CAROL, `[CQ:at,qq=${BOB}] 你去晚了吧，我的QQ是${CAROL}`));
    model.script({ text: '我也想吃红烧肉', usage: { prompt: 120, completion: 8 } });
    const sentAt = Date.now();
    const asked = say(ALICE, `[CQ:at,qq=${BOT}] 你中午吃的什么`, GROUP, 'Alice');
    assert.equal((await s.decided(asked)).reason, 'addressed', 'the repeater decides first');
    const [reply] = await peer.nextSent(1);
    const roundTripMs = Date.now() - sentAt;
    assert.equal(reply?.message, '我也想吃红烧肉');
    const answered = await agentOn(asked);
    assert.equal(answered.reason, 'agent-chat');
    assert.equal(answered.cause?.code, 'agent-chat');

    // The prompt: Chinese persona, the recent lines by name or alias, the question; no number at all.
    const prompt = model.requests[0]!.body;
    const messages = prompt.messages as { role: string; content: string }[];
    assert.equal(prompt.model, 'stand-in-chat');
    assert.match(messages[0]!.content, /群友/);
    assert.match(messages[1]!.content, /红烧肉不错/);
    assert.match(messages[1]!.content, /Alice 对你说：你中午吃的什么/);
    assert.match(messages[1]!.content, /@member2 你去晚了吧/);

    // The ledger and the overview over HTTP.
    const ledger = await until('a ledger row', async () => {
      const page = await s.api('GET', '/llm/agent-platform/ledger?limit=10');
      assert.equal(page.status, 200);
      return page.data.items.length > 0 ? page.data : undefined;
    });
    const row = ledger.items[0];
    assert.deepEqual(
      [row.group_id, row.user_id, row.role, row.model, row.prompt_tokens, row.completion_tokens, row.outcome],
      [GROUP, ALICE, 'chat', 'stand-in-chat', 120, 8, 'ok'],
    );
    t.diagnostic(
      `model path overhead beyond the model's own time: ${roundTripMs - row.latency_ms} ms (round trip ${roundTripMs} ms, model ${row.latency_ms} ms)`,
    );
    const overview = (await s.api('GET', '/llm/agent-platform/overview')).data;
    assert.equal(overview.configured, true);
    assert.equal(overview.today.calls, 1);
    assert.equal(overview.today.tokens, 128);
    assert.equal(overview.budgets.member_daily_calls, MEMBER_CALLS);
    assert.ok(!JSON.stringify(overview).includes('sk-stand-in-secret'), 'the key is never shown');

    // 「不可以」 on the model's reply: banned, and the same text is never said again in the group.
    assert.equal((await s.decided(say(BOB, '小合不可以发这个'))).reason, 'ban');
    await peer.nextSent(1); // the acknowledgement
    model.script({ text: '我也想吃红烧肉' });
    const again = say(CAROL, '小合 中午吃啥');
    const refused = await agentOn(again);
    assert.equal(refused.reason, 'agent-chat-skipped');
    assert.equal(refused.cause?.code, 'agent-banned');

    // In a group set to "also in place of silence": a message the repeater answers never reaches the
    // model; one it has no answer for does (rate 1 here).
    await save(s, `/group-configs/${QUIET}`, { agent_chat: 'silence' });
    await s.teach('周末去爬山吗', '好啊一起去', QUIET);
    const callsBefore = model.requests.length;
    const taught = await s.decided(say(BOB, '周末去爬山吗', QUIET));
    assert.equal(taught.outcome, 'replied');
    assert.equal((await peer.nextSent(1))[0]?.message, '好啊一起去');
    model.script({ text: '随便聊聊呗' });
    const miss = say(CAROL, '有没有人看昨晚的球赛', QUIET);
    assert.equal((await agentOn(miss)).reason, 'agent-chat');
    assert.equal((await peer.nextSent(1))[0]?.message, '随便聊聊呗');
    assert.equal(model.requests.length, callsBefore + 1, 'only the message without a repeater answer was asked');
    assert.ok(
      !s.decisions.some((d) => d.messageId === taught.messageId && d.reason.startsWith('agent-chat')),
      'the answered message never went to the model',
    );
    await save(s, `/group-configs/${QUIET}`, { agent_chat: 'off' });

    // The model down costs the chat nothing: HTTP 500, then an answer slower than the deadline;
    // meanwhile the repeater answers another member at once.
    await s.teach('晚上吃火锅吗', '必须的', GROUP);
    await s.teach('明天会下雨吗', '记得带伞', GROUP);
    await s.teach('明天会下雨吗', '记得带伞', GROUP);
    model.script({ status: 500 });
    const failed = await agentOn(say(ALICE, '小合 在吗'));
    assert.equal(failed.cause?.code, 'agent-model-down');
    assert.equal(failed.cause?.params?.failure, 'http_error');
    model.script({ text: '太慢了', delayMs: 5000 });
    const slow = say(BOB, '小合 讲个笑话');
    await model.waitForRequests(model.requests.length);
    const meanwhileAt = Date.now();
    assert.equal((await s.decided(say(CAROL, '晚上吃火锅吗'))).outcome, 'replied');
    assert.equal((await peer.nextSent(1))[0]?.message, '必须的');
    const meanwhileMs = Date.now() - meanwhileAt;
    assert.ok(meanwhileMs < 800, `the repeater answered in ${meanwhileMs} ms while the model hung`);
    const late = await agentOn(slow);
    assert.equal(late.cause?.params?.failure, 'timeout');
    assert.ok(!sentTexts().includes('太慢了'), 'nothing said after the deadline');

    // Alice has used her budget (calls made: 1 answer, 1 failure; two more use it up): the next
    // call is refused before it is made, and the Why page (HTTP) says why.
    for (let n = 0; n < MEMBER_CALLS - 2; n++) {
      model.script({ text: `第${n}句` });
      assert.equal((await agentOn(say(ALICE, `小合 第${n}个问题`))).reason, 'agent-chat');
      assert.equal((await peer.nextSent(1))[0]?.message, `第${n}句`);
    }
    const callsAtLimit = model.requests.length;
    const over = say(ALICE, '小合 还能聊吗');
    const spent = await agentOn(over);
    assert.equal(spent.cause?.code, 'agent-over-budget');
    assert.deepEqual(spent.cause?.params, { scope: 'member', kind: 'calls', limit: MEMBER_CALLS });
    assert.equal(model.requests.length, callsAtLimit, 'no request once the budget is spent');
    type Kept = { message_id: number; reason: string; cause: { code: string } };
    await until('the Why page row', async () => {
      const why = await s.api('GET', `/repeater/decisions?group_id=${GROUP}&limit=100`);
      assert.equal(why.status, 200);
      return (why.data.decisions as Kept[]).find((d) => d.message_id === over && d.cause.code === 'agent-over-budget');
    });

    // The server gone: unreachable, and the repeater still answers.
    await model.close();
    const gone = await agentOn(say(BOB, '小合 还在吗'));
    assert.equal(gone.cause?.params?.failure, 'unreachable');
    assert.equal((await s.decided(say(CAROL, '明天会下雨吗'))).outcome, 'replied');
    assert.equal((await peer.nextSent(1))[0]?.message, '记得带伞');

    // No QQ number (members, the bot, the groups) in anything the model received; the key only as the Bearer token.
    for (const request of model.requests) {
      for (const id of [BOT, GROUP, QUIET, ALICE, BOB, CAROL]) {
        assert.ok(!request.raw.includes(String(id)), `${id} was sent to the model: ${request.raw}`);
      }
      assert.ok(!request.raw.includes('sk-stand-in-secret'));
      assert.equal(request.authorization, 'Bearer sk-stand-in-secret');
    }
    const decisions: RepeaterDecision[] = s.decisions.filter((d) => d.reason === 'agent-chat');
    assert.ok(decisions.length >= 4);
  },
);
