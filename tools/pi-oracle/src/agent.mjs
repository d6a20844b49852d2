#!/usr/bin/env node
// Offline runs of the REAL pi-coding-agent AgentSession (agent loop, SessionManager persistence,
// read/bash tools, compaction) of a Pi release (0.87.1, or `--pi 1.3.0|1.6.0`) against real
// catalog models, recording every request.
//
//   node src/agent.mjs [--pi RELEASE] [--out DIR] [--only NAME[,NAME…]] [--list]
//
// Writes DIR/<name>/{session.jsonl, requests.json, checks.json, expected.json} (DIR defaults to
// <repo>/fixtures/agent for 0.87.1, <repo>/fixtures/releases/<release>/agent otherwise). Each scenario runs in its own child process (`--run NAME`) so pi-ai's
// module-level uuidv7 state starts fresh and the output is reproducible.
//
// How a request is recorded: the scenario's provider is replaced, via
// ModelRuntime.registerNativeProvider(), by one whose streamSimple() (1) hands the exact transcript
// and options it received from the agent to the real pi-ai API module for the model
// (`@earendil-works/pi-ai/api/<api>`), capturing the object given to onPayload and the HTTP request
// at a stubbed fetch (which then fails, so nothing leaves the machine), and (2) answers from
// pi-ai's createFauxCore with the real model's api/provider/id. Requests whose sessionId is not the
// session's (compaction and branch summaries) are flagged "summarization": true.
// From 1.6.0, Anthropic Messages requests are answered at the fetch stub too, with an SSE stream of
// the same scripted reply (and the same response id, which the faux reply also carries), so that
// pi-ai's message-thread state advances exactly as against the real API and the next request can
// `continue` the thread (its wire body then differs from the payload).
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { activateRelease, atLeast, DEFAULT_RELEASE, packageVersions, takeReleaseArg } from "./lib/release.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..", "..");
const TOOL = "tools/pi-oracle/src/agent.mjs";
const args = process.argv.slice(2);
const RELEASE = takeReleaseArg(args);
activateRelease(RELEASE);
const opt = (name) => {
	const i = args.indexOf(name);
	return i >= 0 ? args[i + 1] : undefined;
};
const outDir = resolve(opt("--out") ?? (RELEASE === DEFAULT_RELEASE ? join(repo, "fixtures", "agent") : join(repo, "fixtures", "releases", RELEASE, "agent")));

const { scenariosFor } = await import("./lib/agent-scripts.mjs");
const AGENT_SCENARIOS = scenariosFor(RELEASE);

if (args.includes("--list")) {
	for (const s of AGENT_SCENARIOS) process.stdout.write(`${s.name}\t${s.about}\n`);
	process.exit(0);
}

const runName = opt("--run");
if (!runName) {
	// Parent: one child process per scenario.
	const only = opt("--only")?.split(",");
	let failed = 0;
	for (const s of AGENT_SCENARIOS) {
		if (only && !only.includes(s.name)) continue;
		const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--run", s.name, "--out", outDir, "--pi", RELEASE], {
			stdio: ["ignore", "inherit", "inherit"],
			timeout: 120000,
		});
		if (r.status !== 0) {
			failed++;
			process.stderr.write(`agent: ${s.name} failed (status ${r.status ?? r.signal})\n`);
		}
	}
	process.exit(failed ? 1 : 0);
}

const scenario = AGENT_SCENARIOS.find((s) => s.name === runName);
if (!scenario) {
	process.stderr.write(`agent: unknown scenario ${runName}\n`);
	process.exit(2);
}
await runScenario(scenario);
process.exit(0);

// ---------------------------------------------------------------------------------------------

async function runScenario(spec) {
	const watchdog = setTimeout(() => {
		process.stderr.write(`agent: ${spec.name}: watchdog timeout\n`);
		process.exit(3);
	}, 90000);
	watchdog.unref();

	const { installDeterminism, rewind } = await import("./lib/determinism.mjs");
	installDeterminism({ performanceClock: RELEASE !== DEFAULT_RELEASE });
	rewind("2026-02-01T08:00:00.000Z");

	const fs = await import("node:fs");
	const { tmpdir } = await import("node:os");
	const { expectedDocument, jsonText, writeAtomic } = await import("./lib/projection.mjs");
	const { captureFetch, redactOptions } = await import("./lib/capture.mjs");

	// Fixed scratch project (its path is part of the system prompt, so it must not vary).
	const scratchRoot = process.env.PI_ORACLE_SCRATCH ?? "/tmp/pi-oracle-agent";
	const projectDir = join(scratchRoot, spec.name);
	// Two generator runs may share this directory (e.g. two people running --check): never delete
	// it wholesale, write the files atomically, and prune only what does not belong.
	const scratchFiles = { "README.md": "# demo\nhello\n", "src/main.rs": 'fn main() {\n    println!("hello");\n}\n' };
	fs.mkdirSync(join(projectDir, "src"), { recursive: true });
	for (const [rel, content] of Object.entries(scratchFiles)) writeAtomic(join(projectDir, rel), content);
	for (const dir of ["", "src"]) {
		for (const name of fs.readdirSync(join(projectDir, dir))) {
			const rel = dir ? `${dir}/${name}` : name;
			if (!(rel in scratchFiles) && rel !== "src" && !name.includes(".tmp-")) fs.rmSync(join(projectDir, rel), { recursive: true, force: true });
		}
	}
	const work = fs.mkdtempSync(join(tmpdir(), `pi-oracle-agent-${spec.name}-`));
	const agentDir = join(work, "agent");
	fs.mkdirSync(agentDir, { recursive: true });
	process.env.PI_OFFLINE = "1";
	process.env.PI_CODING_AGENT_DIR = agentDir;
	delete process.env.PI_CACHE_RETENTION;

	// 1.6 message threads: answer Anthropic requests with the scripted reply (see the header).
	// A scenario may ask for it before 1.6 (a scripted strict-limit rejection needs an answer).
	const answerAnthropic = atLeast(RELEASE, "1.6.0") || spec.answerAnthropic === true;
	let pendingReply = null;
	let pendingReject = null;
	const wireLog = captureFetch({
		answer: (rec) => {
			if (!answerAnthropic || pendingReply === null || !/\/v1\/messages(\?|$)/.test(new URL(rec.url).pathname + new URL(rec.url).search)) return null;
			// A scripted thread rejection of the first attempt (pi-ai's fallback resends).
			if (pendingReject && rec.attempt === 1) return anthropicError(pendingReject);
			return anthropicSse(rec.body, pendingReply);
		},
	});
	const piAi = await import("@earendil-works/pi-ai");
	const { getBuiltinModel } = await import("@earendil-works/pi-ai/providers/all");
	const ca = await import("@earendil-works/pi-coding-agent");

	// Real catalog models, grouped by provider; one faux core per provider.
	const wanted = [spec.model, ...spec.extraModels].map(([p, id]) => {
		const m = getBuiltinModel(p, id);
		if (!m) throw new Error(`${p}/${id} is not in the pi-ai ${RELEASE} catalog`);
		return m;
	});
	const byProvider = new Map();
	for (const m of wanted) {
		if (!byProvider.has(m.provider)) byProvider.set(m.provider, []);
		byProvider.get(m.provider).push(m);
	}

	const { fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall } = piAi;
	const helpers = {
		msg: (content, o) => fauxAssistantMessage(content, o),
		text: (t) => fauxText(t),
		think: (t) => ({ ...fauxThinking(t), thinkingSignature: spec.thinkingSignature?.(t) ?? "sig-oracle" }),
		call: (id, name, a) => fauxToolCall(name, a, { id }),
	};
	const replies = spec.replies(helpers);
	const summaryReply = (_context, _options, _state, model) =>
		fauxAssistantMessage([fauxText(`## Summary\nWork so far on ${model.id}: files listed and read.`)]);

	const requests = [];
	let replyCount = 0;
	let sessionRequests = 0;
	let sessionManager;
	const apiModules = new Map();
	const NON_FETCH = new Set(["bedrock-converse-stream", "openai-codex-responses"]);

	// Bedrock with scripted rejections (`spec.rejectBedrock`: session request number → `{message}`):
	// the AWS SDK's `send` is stubbed, the first attempt answered with a `ValidationException`, the
	// others with a one-text-block stream, so pi-ai's strict-tools fallback runs as against Bedrock.
	let bedrockReject = null;
	let bedrockSends = 0;
	if (spec.rejectBedrock) {
		const { stubBedrockSend, bedrockReplyResponse } = await import("./wire-capture.mjs");
		await stubBedrockSend((_command, sdk) => {
			bedrockSends++;
			if (bedrockReject && bedrockSends === 1) throw new sdk.ValidationException({ message: bedrockReject.message, $metadata: { httpStatusCode: 400 } });
			return bedrockReplyResponse({ id: "req-oracle-bedrock", text: "ok", usage: { input_tokens: 1000, output_tokens: 10 } });
		});
	}

	async function record(model, context, options, reply, reject = null) {
		if (!apiModules.has(model.api)) apiModules.set(model.api, await import(`@earendil-works/pi-ai/api/${model.api}`));
		const stubbedBedrock = spec.rejectBedrock !== undefined && model.api === "bedrock-converse-stream";
		bedrockSends = 0;
		bedrockReject = stubbedBedrock ? reject : null;
		const api = apiModules.get(model.api);
		const summarization = options?.sessionId !== sessionManager.getSessionId();
		const transcript = structuredClone(context.messages);
		const passed = redactOptions(options);
		let payload = null;
		wireLog.reset();
		pendingReply = model.api === "anthropic-messages" ? reply : null;
		pendingReject = pendingReply ? reject : null;
		// Everything the agent passed goes through, including its abort signal (Google's SDK keeps it
		// in the payload as config.abortSignal, which serializes to {}).
		const { onPayload, ...rest } = options ?? {};
		const s = api.streamSimple(model, context, {
			...rest,
			maxRetries: 0,
			onPayload: async (p, m) => {
				const next = (await onPayload?.(p, m)) ?? p;
				// The JSON view of the object, as pi-forge's payload capture would save it.
				payload = JSON.parse(JSON.stringify(next));
				if (NON_FETCH.has(model.api) && !stubbedBedrock) throw new Error("ORACLE_STOP");
				return next;
			},
		});
		const final = await s.result();
		pendingReply = null;
		pendingReject = null;
		const captured = wireLog.take();
		const attempts = wireLog.takeAll();
		if (payload === null) throw new Error(`no payload captured for ${model.provider}/${model.id}: ${final?.errorMessage}`);
		requests.push({
			entryId: null,
			...(summarization ? { summarization: true } : {}),
			api: model.api,
			provider: model.provider,
			model: model.id,
			options: passed,
			transcript,
			payload,
			wire: captured ? { url: captured.url, method: captured.method, body: captured.body } : null,
			bodyText: captured ? captured.bodyText : null,
			...(attempts.length > 1 ? { rejected: attempts.slice(0, -1).map((a) => ({ status: a.status ?? null, url: a.url, method: a.method, body: a.body, bodyText: a.bodyText })) } : {}),
			...(captured?.answered ? { answered: { responseId: final?.responseId ?? null, stopReason: final?.stopReason ?? null, ...(final?.diagnostics ? { diagnostics: final.diagnostics } : {}) } } : {}),
		});
		return { summarization, final };
	}

	for (const [providerId, models] of byProvider) {
		const core = piAi.createFauxCore({
			api: models[0].api,
			provider: providerId,
			models: models.map((m) => ({
				id: m.id,
				name: m.name,
				reasoning: m.reasoning,
				input: m.input,
				contextWindow: m.contextWindow,
				maxTokens: m.maxTokens,
			})),
			tokenSize: { min: 1000, max: 1000 },
		});
		const answer = (kind) => (model, context, options) =>
			piAi.lazyStream(model, async () => {
				const summarization = options?.sessionId !== sessionManager.getSessionId();
				const step = summarization ? summaryReply : replies.shift();
				if (!step) throw new Error(`${spec.name}: no scripted reply left`);
				if (!summarization) sessionRequests++;
				if (answerAnthropic && model.api === "anthropic-messages") {
					// The scripted reply, built once: the SSE stub streams this message, and the faux
					// reply (what the session records) carries the same response id.
					const message = step(context, options, undefined, model);
					if (message.stopReason !== "error") message.responseId ??= `msg_oracle_${String(++replyCount).padStart(4, "0")}`;
					const reject = summarization ? null : (spec.rejectThread?.[sessionRequests] ?? null);
					const { final } = await record(model, context, options, message.stopReason === "error" ? null : message, reject);
					// What pi-ai noted on its reply (1.6 thread fallbacks) is part of the recorded message.
					if (final?.diagnostics?.length) message.diagnostics = final.diagnostics;
					core.setResponses([() => message]);
				} else if (spec.rejectBedrock && model.api === "bedrock-converse-stream") {
					// The scripted reply is what the session records; pi-ai's diagnostics of the
					// stubbed exchange (a strict-tools fallback) are noted on it, as on a real reply.
					const reject = summarization ? null : (spec.rejectBedrock[sessionRequests] ?? null);
					const { final } = await record(model, context, options, null, reject);
					const message = step(context, options, undefined, model);
					if (final?.diagnostics?.length) message.diagnostics = final.diagnostics;
					core.setResponses([() => message]);
				} else {
					await record(model, context, options, null);
					core.setResponses([step]);
				}
				return core[kind](model, context, options);
			});
		const provider = piAi.createProvider({
			id: providerId,
			auth: {
				apiKey: {
					name: "oracle",
					// From 1.3 an OpenAI key without `sk-` takes Responses' ChatGPT sign-in path.
					resolve: async () => ({ auth: { apiKey: spec.apiKey?.() ?? (atLeast(RELEASE, "1.3.0") && models[0].api === "openai-responses" ? "sk-oracle-dummy-key" : "oracle-dummy-key"), ...(spec.auth ?? {}) } }),
				},
			},
			models,
			api: { stream: answer("stream"), streamSimple: answer("streamSimple") },
		});
		byProvider.set(providerId, { models, provider });
	}

	const modelRuntime = await ca.ModelRuntime.create({
		authPath: join(agentDir, "auth.json"),
		modelsPath: null,
		refreshOnCreate: false,
	});
	for (const { provider } of byProvider.values()) modelRuntime.registerNativeProvider(provider);
	const getModel = (p, id) => {
		const m = modelRuntime.getModel(p, id);
		if (!m) throw new Error(`model runtime has no ${p}/${id}`);
		return m;
	};

	const resourceLoader = {
		getExtensions: () => ({ extensions: [], errors: [], runtime: ca.createExtensionRuntime() }),
		getSkills: () => ({ skills: [], diagnostics: [] }),
		getPrompts: () => ({ prompts: [], diagnostics: [] }),
		getThemes: () => ({ themes: [], diagnostics: [] }),
		getAgentsFiles: () => ({ agentsFiles: [] }),
		getSystemPrompt: () => "You are a careful coding assistant used to record forge-replay fixtures.",
		getSystemPromptSource: () => undefined,
		getAppendSystemPrompt: () => [],
		getAppendSystemPromptSources: () => [],
		extendResources: () => {},
		reload: async () => {},
	};
	sessionManager = ca.SessionManager.create(projectDir, join(work, "sessions"), { id: spec.sessionId });
	const settingsManager = ca.SettingsManager.inMemory({
		compaction: { enabled: false, keepRecentTokens: 1 },
		retry: { enabled: false },
		...(spec.settings ?? {}),
	});
	const { session } = await ca.createAgentSession({
		cwd: projectDir,
		agentDir,
		model: getModel(...spec.model),
		thinkingLevel: spec.thinkingLevel,
		modelRuntime,
		resourceLoader,
		tools: spec.tools,
		sessionManager,
		settingsManager,
	});

	const user = {
		model: getModel,
		bash: (s, command) => s.executeBash(command),
	};
	try {
		await spec.drive(session, { user, sessionManager });
	} finally {
		session.dispose();
	}
	if (replies.length) {
		const errors = sessionManager.getEntries().filter((e) => e.message?.stopReason === "error").map((e) => e.message.errorMessage);
		throw new Error(`${spec.name}: ${replies.length} scripted replies unused; errors: ${JSON.stringify(errors)}`);
	}

	// Copy the agent-written file; everything below reads it back from disk.
	const target = join(outDir, spec.name);
	const sessionText = fs.readFileSync(sessionManager.getSessionFile(), "utf8");
	writeAtomic(join(target, "session.jsonl"), sessionText);
	const entries = ca.parseSessionEntries(sessionText).filter((e) => e.type !== "session");
	const byId = new Map(entries.map((e) => [e.id, e]));
	const assistants = entries.filter((e) => e.type === "message" && e.message.role === "assistant");

	// Pair each session request with the assistant entry it produced (file order = request order),
	// then re-derive its transcript from the file: the basis of replay.
	const checks = [];
	let next = 0;
	for (const [index, req] of requests.entries()) {
		if (req.summarization) {
			checks.push({ request: index, summarization: true, sessionIdDiffers: req.options.sessionId !== spec.sessionId });
			continue;
		}
		const a = assistants[next++];
		req.entryId = a?.id ?? null;
		if (!a) {
			checks.push({ request: index, entryId: null, ok: false, note: "no assistant entry for this request" });
			continue;
		}
		const ctx = ca.buildSessionContext(entries, a.parentId, byId);
		const projected = piAi.normalizeContext({ messages: ca.convertToLlm(ctx.messages) }).messages;
		const c = {
			request: index,
			entryId: a.id,
			parentId: a.parentId,
			transcriptEqualsProjection: JSON.stringify(projected) === JSON.stringify(req.transcript),
			modelEqualsEntry: a.message.provider === req.provider && a.message.model === req.model,
			modelEqualsProjection: ctx.model?.provider === req.provider && ctx.model?.modelId === req.model,
			reasoningEqualsThinkingLevel: (req.options.reasoning ?? "off") === ctx.thinkingLevel,
			sessionIdEqualsHeader: req.options.sessionId === spec.sessionId,
		};
		c.ok = c.transcriptEqualsProjection && c.modelEqualsEntry && c.modelEqualsProjection && c.reasoningEqualsThinkingLevel && c.sessionIdEqualsHeader;
		checks.push(c);
	}
	if (next !== assistants.length) checks.push({ ok: false, note: `${assistants.length - next} assistant entries without a request` });
	const allOk = checks.every((c) => c.summarization || c.ok);
	const expectOk = spec.expectReplayable ? spec.expectReplayable(RELEASE) : true;
	const generator = { tool: TOOL, "pi-coding-agent": packageVersions()["@earendil-works/pi-coding-agent"], node: process.versions.node };
	writeAtomic(join(target, "requests.json"), jsonText(requests));
	writeAtomic(
		join(target, "checks.json"),
		jsonText({
			generator,
			scenario: spec.about,
			requests: requests.length,
			sessionRequests: requests.filter((r) => !r.summarization).length,
			summarizationRequests: requests.filter((r) => r.summarization).length,
			allSessionRequestsReplayable: allOk,
			...(spec.expectReplayable ? { expectedReplayable: expectOk } : {}),
			checks,
		}),
	);
	const expected = await expectedDocument(join(target, "session.jsonl"), { tool: TOOL });
	writeAtomic(join(target, "expected.json"), jsonText(expected));
	fs.rmSync(work, { recursive: true, force: true });
	process.stderr.write(
		`${spec.name}: ${requests.length} requests (${requests.filter((r) => r.summarization).length} summarization), replayable=${allOk}\n`,
	);
	// A scenario may declare that a release's run is not replayable from its JSONL (a finding, such
	// as 1.3's navigateTree keeping the agent's thinking level); any other outcome fails.
	if (allOk !== expectOk) {
		process.stderr.write(`${spec.name}: replayable=${allOk}, expected ${expectOk}\n`);
		process.exitCode = 1;
	}
}

/** An Anthropic API error (`{status, errorCode?, message}`), e.g. a thread rejection. */
function anthropicError(reject) {
	const error = { type: "invalid_request_error", message: reject.message, ...(reject.errorCode ? { details: { error_code: reject.errorCode } } : {}) };
	return new Response(JSON.stringify({ type: "error", error }), { status: reject.status ?? 400, headers: { "content-type": "application/json", "request-id": "req_oracle_rejected" } });
}

/** An Anthropic Messages SSE stream of the faux message `m` (text, thinking, tool calls). */
function anthropicSse(body, m) {
	const events = [];
	const ev = (type, data) => events.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
	ev("message_start", { message: { id: m.responseId, type: "message", role: "assistant", model: body?.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1000, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } } });
	m.content.forEach((b, index) => {
		if (b.type === "text") {
			ev("content_block_start", { index, content_block: { type: "text", text: "" } });
			ev("content_block_delta", { index, delta: { type: "text_delta", text: b.text } });
		} else if (b.type === "thinking") {
			ev("content_block_start", { index, content_block: { type: "thinking", thinking: "" } });
			ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking: b.thinking } });
			ev("content_block_delta", { index, delta: { type: "signature_delta", signature: b.thinkingSignature ?? "" } });
		} else if (b.type === "toolCall") {
			ev("content_block_start", { index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
			ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.arguments ?? {}) } });
		}
		ev("content_block_stop", { index });
	});
	const stop = m.stopReason === "toolUse" ? "tool_use" : m.stopReason === "length" ? "max_tokens" : "end_turn";
	ev("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 20 } });
	ev("message_stop", {});
	return new Response(events.join(""), { status: 200, headers: { "content-type": "text/event-stream", "request-id": `req_${m.responseId}` } });
}
