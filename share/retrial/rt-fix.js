#!/usr/bin/env node
// rt-fix.js: rt-diagnose's order repair for jest test files (issue 34,
// item 3), planned with a parser the ORIGINAL project has installed (as
// rt-inventory.js finds it: acorn, else @babel/parser), never a patched
// copy's.
//
//   node rt-fix.js --root DIR [--parser-root DIR] REQUEST
//
// REQUEST is rt-fix.py's order request: {"kind": "order", "category",
// "victim": ID, "helper": ID, "role": "setter"|"cleaner"|"polluter",
// "keep": [i...], "place": "teardown", "polluter": ID}, IDs as jest's
// "FILE::describe ... test". A setter's or cleaner's candidate statements
// are those of its describe blocks' beforeAll/beforeEach hooks (outermost
// first), its own body, then its afterEach/afterAll hooks; expression
// statements only, never a check. Those in "keep" (all by default) run in
// a beforeEach of the victim's describe block (place "teardown": an
// afterEach of the polluter's). The answer is rt-fix.py's: {"status":
// "ok", "file", "source", "line", "statements", "explanation"} or
// {"status": "no_patch", "reason"}, one JSON object on stdout, exit 0.
'use strict';
const fs = require('fs');
const path = require('path');

function out(o) {
	process.stdout.write(JSON.stringify(o) + '\n');
	process.exit(0);
}

function noPatch(reason) {
	out({ status: 'no_patch', reason });
}

function parseArgs(argv) {
	let root = null, parserRoot = null, req = null;
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === '--root' && i + 1 < argv.length) root = argv[++i];
		else if (argv[i] === '--parser-root' && i + 1 < argv.length) parserRoot = argv[++i];
		else if (req === null && !argv[i].startsWith('--')) req = argv[i];
		else {
			process.stderr.write('usage: rt-fix.js --root DIR [--parser-root DIR] REQUEST\n');
			process.exit(2);
		}
	}
	if (!root || req === null) {
		process.stderr.write('usage: rt-fix.js --root DIR [--parser-root DIR] REQUEST\n');
		process.exit(2);
	}
	return { root: path.resolve(root), parserRoot: path.resolve(parserRoot || root), req };
}

// the project's parser, an ESTree with start/end offsets and loc
function parser(parserRoot, file) {
	const ts = /\.(ts|tsx|mts|cts)$/.test(file);
	if (!ts) {
		try {
			const acorn = require(require.resolve('acorn', { paths: [parserRoot] }));
			return { name: 'acorn', parse: (src) => {
				const o = { ecmaVersion: 'latest', sourceType: 'module', locations: true,
					allowHashBang: true, allowAwaitOutsideFunction: true,
					allowReturnOutsideFunction: true, allowImportExportEverywhere: true };
				try {
					return acorn.parse(src, o);
				} catch (e) {
					return acorn.parse(src, Object.assign(o, { sourceType: 'script' }));
				}
			} };
		} catch (e) { /* next */ }
	}
	try {
		const babel = require(require.resolve('@babel/parser', { paths: [parserRoot] }));
		const plugins = ['estree'];
		if (ts) plugins.push('typescript');
		if (/\.tsx$/.test(file)) plugins.push('jsx');
		if (!ts) plugins.push('jsx');
		return { name: '@babel/parser', parse: (src) => babel.parse(src, {
			sourceType: 'unambiguous', plugins, allowReturnOutsideFunction: true,
			allowAwaitOutsideFunction: true, allowImportExportEverywhere: true,
		}).program };
	} catch (e) { /* none */ }
	noPatch('no parser for ' + file + ' in the project (acorn or @babel/parser)');
}

function readRel(root, rel) {
	const p = path.resolve(root, rel);
	if (p !== root && !p.startsWith(root + path.sep)) noPatch(rel + ': outside the project');
	try {
		return fs.readFileSync(p, 'utf8');
	} catch (e) {
		noPatch(rel + ': ' + e.message);
	}
}

const HOOKS = ['beforeAll', 'beforeEach', 'afterEach', 'afterAll'];
const TESTS = ['test', 'it', 'fit'];

// callee's base name and whether it is describe/test/a hook
function calleeName(c) {
	if (c.type === 'Identifier') return c.name;
	if (c.type === 'MemberExpression' && !c.computed && c.object.type === 'Identifier' &&
	    ['only', 'concurrent', 'serial'].includes(c.property.name))
		return c.object.name;
	return null;
}

function titleOf(a) {
	if (!a) return null;
	if ((a.type === 'Literal' || a.type === 'StringLiteral') && typeof a.value === 'string') return a.value;
	if (a.type === 'TemplateLiteral' && a.expressions.length === 0) return a.quasis[0].value.cooked;
	return null;
}

function fnBody(f) {
	if (!f || (f.type !== 'ArrowFunctionExpression' && f.type !== 'FunctionExpression')) return null;
	return f.body;
}

// The describe tree: each block {title, parent, body (statements), node,
// hooks: {name: [fn]}}, each test {name, block, fn, stmt}.
function blocks(program) {
	const tests = [];
	const top = { title: null, parent: null, body: program.body, node: program, hooks: {} };
	const walk = (blk) => {
		for (const s of blk.body) {
			if (s.type !== 'ExpressionStatement' || s.expression.type !== 'CallExpression') continue;
			const call = s.expression, n = calleeName(call.callee);
			if (n === 'describe' || n === 'fdescribe') {
				const b = fnBody(call.arguments[1]), t = titleOf(call.arguments[0]);
				if (!b || b.type !== 'BlockStatement' || t === null) continue;
				const sub = { title: t, parent: blk, body: b.body, node: b, hooks: {}, stmt: s };
				walk(sub);
			} else if (HOOKS.includes(n)) {
				(blk.hooks[n] = blk.hooks[n] || []).push(call.arguments[0]);
			} else if (TESTS.includes(n)) {
				const t = titleOf(call.arguments[0]);
				if (t === null) continue;
				const titles = [];
				for (let p = blk; p && p.title !== null; p = p.parent) titles.unshift(p.title);
				titles.push(t);
				tests.push({ name: titles.join(' '), block: blk, fn: call.arguments[1], stmt: s });
			}
		}
	};
	walk(top);
	return tests;
}

function splitId(id) {
	const k = id.indexOf('::');
	if (k < 0) noPatch(id + ': not a jest ID (FILE::describe test)');
	return [id.slice(0, k), id.slice(k + 2)];
}

function findTest(tests, name, id) {
	const m = tests.filter((t) => t.name === name);
	if (m.length !== 1) noPatch(id + (m.length ? ': more than one test has that name' : ': not found by the parser'));
	return m[0];
}

// names an expression uses (identifiers read, not property names)
function used(node, acc) {
	if (!node || typeof node.type !== 'string') return acc;
	if (node.type === 'Identifier') {
		acc.add(node.name);
		return acc;
	}
	for (const k of Object.keys(node)) {
		if (k === 'loc' || k === 'start' || k === 'end' || k === 'range') continue;
		const v = node[k];
		if ((node.type === 'MemberExpression' || node.type === 'OptionalMemberExpression') &&
		    k === 'property' && !node.computed) continue;
		if ((node.type === 'Property' || node.type === 'ObjectProperty') && k === 'key' && !node.computed) continue;
		if (Array.isArray(v)) v.forEach((x) => used(x, acc));
		else if (v && typeof v.type === 'string') used(v, acc);
	}
	return acc;
}

const CHECKS = new Set(['expect', 'assert']);

function isCheck(s) {
	return [...used(s, new Set())].some((n) => CHECKS.has(n));
}

// declared at a block's top: const/let/var ids, functions, classes, imports
function declared(stmts) {
	const names = new Map();
	const pat = (p, s) => {
		if (!p) return;
		if (p.type === 'Identifier') names.set(p.name, s);
		else if (p.type === 'ObjectPattern') p.properties.forEach((q) => pat(q.value || q.argument, s));
		else if (p.type === 'ArrayPattern') p.elements.forEach((q) => pat(q, s));
		else if (p.type === 'RestElement') pat(p.argument, s);
		else if (p.type === 'AssignmentPattern') pat(p.left, s);
	};
	for (const s of stmts) {
		if (s.type === 'VariableDeclaration') s.declarations.forEach((d) => pat(d.id, s));
		else if ((s.type === 'FunctionDeclaration' || s.type === 'ClassDeclaration') && s.id) names.set(s.id.name, s);
		else if (s.type === 'ImportDeclaration') s.specifiers.forEach((x) => names.set(x.local.name, s));
	}
	return names;
}

const GLOBALS = new Set(['process', 'console', 'global', 'globalThis', 'Date', 'Math', 'JSON',
	'Object', 'Array', 'String', 'Number', 'Boolean', 'Symbol', 'Map', 'Set', 'WeakMap',
	'Promise', 'Error', 'RegExp', 'Buffer', 'setTimeout', 'clearTimeout', 'setInterval',
	'clearInterval', 'undefined', 'NaN', 'Infinity', 'jest', 'require', 'module', 'exports',
	'__dirname', '__filename', 'performance', 'URL', 'Reflect', 'Proxy', 'BigInt']);

// a statement's lines, its first line's indentation replaced by ind
function stmtLines(text, s, ind) {
	const lineStart = text.lastIndexOf('\n', s.start - 1) + 1;
	const col = s.start - lineStart;
	return text.slice(s.start, s.end).split('\n').map((l, i) => {
		if (i === 0) return ind + l + '\n';
		const lead = l.match(/^[ \t]*/)[0].length;
		return ind + l.slice(Math.min(lead, col)) + '\n';
	});
}

function lineOf(text, off) {
	return text.slice(0, off).split('\n').length;
}

function indentAt(text, off) {
	const ls = text.lastIndexOf('\n', off - 1) + 1;
	return text.slice(ls, off).match(/^[ \t]*/)[0];
}

function main() {
	const a = parseArgs(process.argv.slice(2));
	let req;
	try {
		req = JSON.parse(a.req);
	} catch (e) {
		process.stderr.write('rt-fix.js: REQUEST: ' + e.message + '\n');
		process.exit(2);
	}
	if (req.kind !== 'order') noPatch('rt-fix.js plans order repairs only');
	const role = req.role;
	if (role !== 'setter' && role !== 'cleaner')
		noPatch('for jest, a ' + role + "'s state is not reset by this rule: a setter's or a " +
		    "cleaner's statements are repeated where the victim gets its state");
	const [vfile, vname] = splitId(req.victim);
	const [hfile, hname] = splitId(req.helper);
	const texts = {}, trees = {}, parsers = {};
	for (const f of new Set([vfile, hfile, ...(req.polluter ? [splitId(req.polluter)[0]] : [])])) {
		texts[f] = readRel(a.root, f);
		const p = parser(a.parserRoot, f);
		parsers[f] = p.name;
		try {
			trees[f] = p.parse(texts[f]);
		} catch (e) {
			noPatch(f + ': ' + p.name + ' does not parse it: ' + e.message);
		}
	}
	const vtests = blocks(trees[vfile]), htests = blocks(trees[hfile]);
	const vt = findTest(vtests, vname, req.victim), ht = findTest(htests, hname, req.helper);
	const htext = texts[hfile];

	// the helper's candidates: (where, statement, bound names of its fn)
	const chain = [];
	for (let b = ht.block; b; b = b.parent) chain.unshift(b);
	const cands = [];
	const take = (fn, where) => {
		const body = fnBody(fn);
		if (!body) return;
		const params = new Set();
		(fn.params || []).forEach((p) => used(p, params));
		const stmts = body.type === 'BlockStatement' ? body.body :
		    [{ type: 'ExpressionStatement', expression: body, start: body.start, end: body.end, loc: body.loc }];
		for (const s of stmts)
			if (s.type === 'ExpressionStatement' && !isCheck(s) &&
			    ![...used(s, new Set())].some((n) => params.has(n)))
				cands.push({ s, where });
	};
	const title = (b) => (b.title === null ? 'the file' : "describe('" + b.title + "')");
	for (const b of chain)
		for (const h of ['beforeAll', 'beforeEach'])
			(b.hooks[h] || []).forEach((fn) => take(fn, h + ' of ' + title(b) + ' (' + hfile + ':' + fn.loc.start.line + ')'));
	take(ht.fn, hname + ' (' + hfile + ':' + ht.stmt.loc.start.line + ')');
	for (const b of chain.slice().reverse())
		for (const h of ['afterEach', 'afterAll'])
			(b.hooks[h] || []).forEach((fn) => take(fn, h + ' of ' + title(b) + ' (' + hfile + ':' + fn.loc.start.line + ')'));
	if (!cands.length)
		noPatch('the ' + role + ' ' + hname + ' has no statement (outside its checks) in its ' +
		    'body or its describe blocks\' hooks that could run for ' + vname);
	const one = (s) => htext.slice(s.start, s.end).split(/\s+/).join(' ').replace(/;$/, '');
	const stmts = cands.map((c) => one(c.s));
	let keep = cands;
	if (req.keep !== undefined && req.keep !== null) {
		const idx = req.keep;
		if (!Array.isArray(idx) || !idx.length || idx.some((i) => !Number.isInteger(i) || i < 0 || i >= cands.length))
			noPatch('keep: ' + JSON.stringify(idx) + ': not indices of the ' + cands.length + ' statements');
		keep = [...new Set(idx)].sort((x, y) => x - y).map((i) => cands[i]);
	}

	// where it goes: a beforeEach of the victim's describe block, or (a
	// cleaner's teardown) an afterEach of the polluter's
	let tfile = vfile, tblock = vt.block, hook = 'beforeEach', anchor = vt.stmt, whom = vname;
	if (req.place === 'teardown') {
		if (!req.polluter) noPatch('place teardown needs the polluter');
		const [pfile, pname] = splitId(req.polluter);
		const pt = findTest(blocks(trees[pfile]), pname, req.polluter);
		tfile = pfile;
		tblock = pt.block;
		hook = 'afterEach';
		anchor = pt.stmt;
		whom = pname;
	}
	const ttext = texts[tfile];
	// names: the target file's module scope (or globals) has them, else
	// the helper's module-level require/import is copied when it resolves
	// the same from both files
	const have = declared(trees[tfile].body);
	for (let b = tblock; b && b.title !== null; b = b.parent) declared(b.body).forEach((v, k) => have.set(k, v));
	const hdecl = declared(trees[hfile].body);
	const add = [];
	for (const c of keep)
		for (const n of used(c.s, new Set())) {
			if (have.has(n) || GLOBALS.has(n)) continue;
			const d = hdecl.get(n);
			const relReq = d && /require\(\s*['"]\.|from\s+['"]\./.test(htext.slice(d.start, d.end));
			if (!d || (relReq && path.dirname(hfile) !== path.dirname(tfile)) ||
			    (d.type !== 'ImportDeclaration' && !/require\(/.test(htext.slice(d.start, d.end))))
				noPatch(one(c.s) + ' (' + hfile + ':' +
				    c.s.loc.start.line + ') uses ' + n + ', which ' + tfile + ' does not have');
			const line = htext.slice(d.start, d.end) + '\n';
			if (!add.includes(line)) add.push(line);
			have.set(n, d);
		}

	let at, ind;
	if (tblock.title !== null && tblock.body.length) {
		at = tblock.body[0].start;
		ind = indentAt(ttext, at);
	} else if (tblock.title !== null) {
		noPatch(tfile + ': the describe block around ' + whom + ' is empty');
	} else {
		at = anchor.start;
		ind = indentAt(ttext, at);
	}
	const ls = ttext.lastIndexOf('\n', at - 1) + 1;
	const unit = ind.includes('\t') ? '\t' : '  ';
	const block = [ind + hook + '(() => {\n'];
	for (const c of keep) block.push(...stmtLines(htext, c.s, ind + unit));
	block.push(ind + '});\n', '\n');
	let src = ttext.slice(0, ls) + block.join('') + ttext.slice(ls);
	let line = lineOf(ttext, ls);
	if (add.length) {
		const top = trees[tfile].body;
		let last = null;
		for (const s of top) {
			const t = ttext.slice(s.start, s.end);
			if (s.type === 'ImportDeclaration' || (s.type === 'VariableDeclaration' && /^\s*(const|let|var)\s[^=]*=\s*require\(/.test(t))) last = s;
			else if (last) break;
		}
		const off = last ? ttext.indexOf('\n', last.end) + 1 : 0;
		src = src.slice(0, off) + add.join('') + src.slice(off);
		line += add.length;
	}
	const where = [...new Set(keep.map((c) => c.where))];
	const said = keep.map((c) => one(c.s)).join('; ').slice(0, 300);
	const place = (hook === 'afterEach' ? 'an ' : 'a ') + hook + ' of the describe block around ' + whom + ' (' + tfile + ')';
	out({
		status: 'ok', file: tfile, source: src, line, statements: stmts,
		explanation: hname + (role === 'setter' ? ' sets up the state ' + vname + ' needs' :
		    ' resets the state ' + vname + ' reads') + ' through ' + where.join(' and ') +
		    '; its statements (' + said + ') run in ' + place + ', so ' + vname +
		    ' no longer depends on which test ran before it.',
	});
}

main();
