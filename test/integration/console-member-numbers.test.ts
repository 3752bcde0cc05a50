/**
 * Read means read (docs/rules.md#console-member-numbers), over real HTTP against `startService` on
 * SQLite and on PostgreSQL: members speak in a group (one mentions another with a CQ code), a
 * friend request arrives, a member is blocked in the group and another marked as a bot, an answer
 * holding a mention is learned from the chat. Every route that returns stored messages or members then answers a
 * read token without any of those QQ numbers (negative stand-ins, the same member the same
 * stand-in, `x-chorus-members: masked`), and the write token with them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { FAST_REPLIES, pgSchema, save, sleep, startControlsService, WRITE } from '../support/controls-service.ts';

const BOT = 65101;
const GROUP = 9301;
const SPEAKER = 2345671;
const OTHER = 2345672;
const MENTIONED = 2345673;
const BLOCKED = 2345674;
const MARKED = 2345675;
const ASKER = 2345676;
const MEMBERS = [SPEAKER, OTHER, MENTIONED, BLOCKED, MARKED, ASKER];

/** The GET routes that return stored messages or members (`config.members`). */
const ROUTES = [
  `/repeater/decisions?group_id=${GROUP}`,
  `/repeater/decisions?group_id=${GROUP}&scope=process`,
  '/corpus/search?q=%E6%99%9A%E9%A5%AD',
  '/corpus/browse',
  '/corpus/moderation',
  '/activity',
  '/logs?limit=500',
  '/logs/export',
  '/log-errors',
  '/friend-requests',
  '/request-overview',
  '/suspected-bots',
  '/group-configs',
  `/group-configs/${GROUP}`,
  '/user-configs',
  `/friend-list?self_id=${BOT}`,
  '/local-corpus-hot',
];

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`member numbers at the read level (${engine})`, () => {
    it(
      'a read token sees stand-ins on every route that returns members; the write token sees the numbers',
      {
        timeout: 90_000,
      },
      async (t) => {
        const schema = engine === 'postgres' ? await pgSchema() : null;
        const s = await startControlsService(t, FAST_REPLIES, schema?.url ?? '', true);
        const READ = `controls-read-${s.port}`;
        const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${s.port}/onebot/v11/ws`, selfId: BOT });
        // The account, then the service, then its schema.
        t.after(async () => {
          await peer.close().catch(() => undefined);
          await s.stop();
          await schema?.drop();
        });
        peer.friends = [{ user_id: SPEAKER, nickname: '小明', remark: '' }];

        const get = async (path: string, token: string) => {
          const response = await fetch(`http://127.0.0.1:${s.port}/chorus/api${path}`, {
            headers: { 'x-chorus-token': token },
          });
          return {
            status: response.status,
            header: response.headers.get('x-chorus-members'),
            text: await response.text(),
          };
        };

        // Chat: two members talk, one mentions a third; the mention is learned as an answer to the first.
        let second = Math.floor(Date.now() / 1000) - 600;
        const mention = `[CQ:at,qq=${MENTIONED}] 晚饭吃火锅吗`;
        const said = [
          peer.groupMessage({
            groupId: GROUP,
            userId: SPEAKER,
            nickname: '小明',
            text: '今天晚饭吃什么',
            time: ++second,
          }),
          peer.groupMessage({ groupId: GROUP, userId: OTHER, nickname: '小红', message: mention, time: ++second }),
        ];
        for (const id of said) await s.decided(id);
        peer.request({ kind: 'friend', userId: ASKER, comment: '加个好友' });
        await save(s, `/group-configs/${GROUP}`, { blocked_user_ids: [BLOCKED] });
        await save(s, `/user-configs/${MARKED}`, { bot: true });
        const deadline = Date.now() + 5_000;
        while (!(await get('/friend-requests', WRITE)).text.includes(String(ASKER))) {
          if (Date.now() > deadline) throw new Error('the friend request never arrived');
          await sleep(20);
        }

        const seen = new Set<number>();
        for (const path of ROUTES) {
          const read = await get(path, READ);
          assert.equal(read.status, 200, `${path}: ${read.text}`);
          assert.equal(read.header, 'masked', `${path}: the header says the numbers are stand-ins`);
          for (const member of MEMBERS) {
            assert.ok(!read.text.includes(String(member)), `${path} shows ${member} to a read session: ${read.text}`);
          }
          const write = await get(path, WRITE);
          assert.equal(write.status, 200, `${path}: ${write.text}`);
          assert.equal(write.header, null, `${path}: nothing masked for write`);
          for (const member of MEMBERS) if (write.text.includes(String(member))) seen.add(member);
        }
        assert.deepEqual([...seen].sort(), [...MEMBERS].sort(), 'the write level sees every member somewhere');

        // A stand-in is negative and the same for the same member across routes.
        const decisions = JSON.parse((await get(`/repeater/decisions?group_id=${GROUP}`, READ)).text).data
          .decisions as {
          user_id: number;
          raw_message: string;
        }[];
        const speaker = decisions.find((d) => d.raw_message.includes('今天晚饭吃什么'))?.user_id;
        const other = decisions.find((d) => d.raw_message.includes('火锅'))?.user_id;
        assert.ok(speaker !== undefined && speaker < 0 && other !== undefined && other < 0, JSON.stringify(decisions));
        assert.notEqual(speaker, other, 'two members, two stand-ins');
        const logs = (await get('/logs?limit=500', READ)).text;
        assert.match(logs, new RegExp(`"user":${speaker}\\b`), 'the chat line names the same stand-in');
        const friends = JSON.parse((await get(`/friend-list?self_id=${BOT}`, READ)).text).data.friends;
        assert.equal(friends[0].user_id, speaker, 'the friend list uses the same stand-in');
        assert.match((await get('/corpus/browse', READ)).text, /\[CQ:at,qq=-\d+\]/, 'a mention keeps its form');
      },
    );
  });
}
