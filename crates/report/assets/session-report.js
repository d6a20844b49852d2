// forge-replay session report: draws the charts from #report-data and links chart, requests and
// tree. Plain ES5, no library, no network. Sets <body data-status="ready"> when done.
(function () {
  'use strict';
  var NS = 'http://www.w3.org/2000/svg';
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var reqs = data.requests;
  var causes = data.causes;
  var n = reqs.length;

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) {
      if (Object.prototype.hasOwnProperty.call(attrs, k)) e.setAttribute(k, String(attrs[k]));
    }
    if (parent) parent.appendChild(e);
    return e;
  }
  function text(parent, x, y, s, attrs) {
    var t = el('text', attrs || {}, parent);
    t.setAttribute('x', r1(x));
    t.setAttribute('y', r1(y));
    t.textContent = s;
    return t;
  }
  function r1(v) { return Math.round(v * 10) / 10; }
  function tokens(v) {
    if (Math.floor(v) !== v) return String(v);
    var s = String(Math.abs(v)), out = '';
    for (var i = 0; i < s.length; i++) {
      if (i > 0 && (s.length - i) % 3 === 0) out += ',';
      out += s.charAt(i);
    }
    return (v < 0 ? '-' : '') + out;
  }
  function short(v) {
    if (v >= 1e6) return trim(v / 1e6) + 'M';
    if (v >= 1e3) return trim(v / 1e3) + 'k';
    return String(v);
  }
  function trim(v) { return String(Math.round(v * 10) / 10); }
  function rate(r) { return r === null ? '\u2014' : (r * 100).toFixed(1) + '%'; }
  function usd(v) {
    if (v === 0) return '$0.00';
    return '$' + (Math.abs(v) < 1 ? v.toFixed(4) : v.toFixed(2));
  }
  function niceMax(v) {
    if (!(v > 0)) return 1;
    var p = Math.pow(10, Math.floor(Math.log(v) / Math.LN10));
    var steps = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];
    for (var i = 0; i < steps.length; i++) if (steps[i] * p >= v) return steps[i] * p;
    return 10 * p;
  }
  function total(c) { return c.input + c.cacheRead + c.cacheWrite + c.output; }

  var W = 1000;
  var M = { l: 52, r: 58, t: 40, b: 30 };
  var plotW = W - M.l - M.r;
  var band = plotW / Math.max(n, 1);
  function cx(i) { return M.l + (i + 0.5) * band; }
  var labelEvery = (function () {
    var want = n / 16, steps = [1, 2, 5];
    for (var p = 1; ; p *= 10) {
      for (var i = 0; i < steps.length; i++) if (steps[i] * p >= want) return steps[i] * p;
    }
  })();
  var bands = [];

  function xAxis(svg, y0) {
    el('line', { 'class': 'axis', x1: M.l, x2: W - M.r, y1: y0, y2: y0 }, svg);
    for (var i = 0; i < n; i += labelEvery) {
      text(svg, cx(i), y0 + 16, String(reqs[i].index), { 'text-anchor': 'middle' });
    }
    text(svg, W - M.r, y0 + 16, 'request', { 'text-anchor': 'start', dx: 6 });
  }

  function hover(svg, y0, h) {
    for (var i = 0; i < n; i++) {
      var b = el('rect', {
        'class': 'band', x: r1(M.l + i * band), y: r1(y0 - h), width: r1(band), height: r1(h),
        'data-request': i
      }, svg);
      bands.push(b);
    }
  }

  function hitChart() {
    var host = document.getElementById('chart-hit');
    if (!host) return;
    var H = 300, h = H - M.t - M.b, y0 = M.t + h;
    var svg = el('svg', { viewBox: '0 0 ' + W + ' ' + H, 'class': 'hit-chart' }, host);
    function y(r) { return y0 - h * r; }
    for (var g = 0; g <= 4; g++) {
      var yy = y(g / 4);
      el('line', { 'class': g === 0 ? 'axis' : 'grid', x1: M.l, x2: W - M.r, y1: r1(yy), y2: r1(yy) }, svg);
      text(svg, M.l - 8, yy + 4, (g * 25) + '%', { 'text-anchor': 'end' });
    }
    hover(svg, y0, h + 30);
    var bw = Math.max(1, Math.min(band * 0.62, 46));
    var breaksSeen = 0;
    for (var i = 0; i < n; i++) {
      var q = reqs[i], x = cx(i);
      if (q.hitRate !== null) {
        var top = y(q.hitRate), height = Math.max(y0 - top, 1.5);
        el('rect', {
          'class': 'bar', x: r1(x - bw / 2), y: r1(y0 - height), width: r1(bw), height: r1(height),
          'data-request': i, 'data-hit': (q.hitRate * 100).toFixed(1)
        }, svg);
      } else {
        el('rect', {
          'class': 'bar nodata', x: r1(x - bw / 2), y: r1(y0 - 4), width: r1(bw), height: 4,
          'data-request': i, 'data-hit': q.hasUsage ? 'no cache data' : 'no usage'
        }, svg);
      }
      if (q['break'] !== null) {
        var colour = causes[q['break']].colour;
        el('line', {
          'class': 'break-line', x1: r1(x), x2: r1(x), y1: M.t - 6, y2: y0, stroke: colour
        }, svg);
        var mk = el('path', {
          'class': 'break-marker', 'data-request': i, 'data-cause': q['break'], fill: colour,
          d: 'M' + r1(x - 6) + ' ' + (M.t - 14) + 'L' + r1(x + 6) + ' ' + (M.t - 14) + 'L' + r1(x) + ' ' + (M.t - 5) + 'Z'
        }, svg);
        var title = el('title', {}, mk);
        title.textContent = 'request ' + q.index + ': ' + q['break'];
        if (band >= 34) {
          var row = breaksSeen % 2;
          text(svg, x, M.t - 20 - row * 13, q['break'], {
            'class': 'break-label', 'text-anchor': 'middle', style: 'fill:' + colour
          });
        }
        breaksSeen++;
      }
    }
    var pts = [];
    for (var j = 0; j < n; j++) {
      if (reqs[j].cumulativeHitRate !== null) pts.push(r1(cx(j)) + ',' + r1(y(reqs[j].cumulativeHitRate)));
    }
    if (pts.length > 1) el('polyline', { 'class': 'run', points: pts.join(' ') }, svg);
    for (var k = 0; k < n; k++) {
      var nr = reqs[k].nestedHitRate;
      if (nr === null) continue;
      var s = Math.max(3, Math.min(7, band * 0.3)), ny = y(nr), nx = cx(k);
      el('path', {
        'class': 'nested', 'data-request': k, 'data-nested': (nr * 100).toFixed(1),
        d: 'M' + r1(nx) + ' ' + r1(ny - s) + 'L' + r1(nx + s) + ' ' + r1(ny) + 'L' + r1(nx) + ' ' + r1(ny + s) + 'L' + r1(nx - s) + ' ' + r1(ny) + 'Z'
      }, svg);
    }
    if (n > 0 && reqs[n - 1].cumulativeHitRate !== null) {
      var last = reqs[n - 1].cumulativeHitRate;
      text(svg, W - M.r + 6, y(last) + 4, rate(last), { 'class': 'end-label', id: 'hit-end' });
    }
    xAxis(svg, y0);
  }

  function cumulativeChart() {
    var host = document.getElementById('chart-cum');
    if (!host) return;
    var H = 260, h = H - M.t - M.b + 14, y0 = M.t - 14 + h;
    var svg = el('svg', { viewBox: '0 0 ' + W + ' ' + H, 'class': 'cum-chart' }, host);
    var maxTok = 0, maxCost = 0;
    for (var i = 0; i < n; i++) {
      maxTok = Math.max(maxTok, total(reqs[i].cumulative) + reqs[i].cumulativeNested);
      maxCost = Math.max(maxCost, reqs[i].cumulativeCost);
    }
    var top = niceMax(maxTok), topCost = niceMax(maxCost);
    function y(v) { return y0 - h * (v / top); }
    function yc(v) { return y0 - h * (v / topCost); }
    for (var g = 0; g <= 4; g++) {
      var yy = y0 - h * g / 4;
      el('line', { 'class': g === 0 ? 'axis' : 'grid', x1: M.l, x2: W - M.r, y1: r1(yy), y2: r1(yy) }, svg);
      text(svg, M.l - 8, yy + 4, short(top * g / 4), { 'text-anchor': 'end' });
      if (maxCost > 0) text(svg, W - M.r + 8, yy + 4, usd(topCost * g / 4), { 'text-anchor': 'start' });
    }
    hover(svg, y0, h);
    var bw = Math.max(1, Math.min(band * 0.62, 46));
    var kinds = [['cacheRead', 'area-read'], ['cacheWrite', 'area-write'], ['input', 'area-input'], ['output', 'area-output']];
    for (var j = 0; j < n; j++) {
      var c = reqs[j].cumulative, base = 0, x = cx(j) - bw / 2;
      for (var k = 0; k < kinds.length; k++) {
        var v = c[kinds[k][0]];
        if (v > 0) {
          el('rect', {
            'class': 'stack ' + kinds[k][1], x: r1(x), y: r1(y(base + v)), width: r1(bw),
            height: r1(y(base) - y(base + v)), 'data-request': j, 'data-kind': kinds[k][0]
          }, svg);
        }
        base += v;
      }
    }
    var nested = [], cost = [], anyNested = false;
    for (var m = 0; m < n; m++) {
      var q = reqs[m];
      if (q.cumulativeNested > 0) anyNested = true;
      nested.push(r1(cx(m)) + ',' + r1(y(total(q.cumulative) + q.cumulativeNested)));
      cost.push(r1(cx(m)) + ',' + r1(yc(q.cumulativeCost)));
    }
    if (anyNested) el('polyline', { 'class': 'nested-line', points: nested.join(' ') }, svg);
    if (maxCost > 0) el('polyline', { 'class': 'cost-line', points: cost.join(' ') }, svg);
    if (n > 0) {
      var lastQ = reqs[n - 1], lt = total(lastQ.cumulative);
      text(svg, cx(n - 1), y(lt + lastQ.cumulativeNested) - 8, tokens(lt) + ' tokens', {
        'class': 'end-label', id: 'tokens-end', 'text-anchor': 'end'
      });
      var caption = 'main ' + tokens(lt) + ' tokens';
      if (anyNested) caption += ' \u00b7 with nested ' + tokens(lt + lastQ.cumulativeNested);
      caption += ' \u00b7 cost ' + usd(lastQ.cumulativeCost) + (maxCost > 0 ? '' : ' (Pi recorded no cost)');
      text(svg, M.l, 16, caption, { 'class': 'end-label', id: 'cum-caption' });
    }
    xAxis(svg, y0);
  }

  var readout = document.getElementById('readout');
  function part(parent, label, value) {
    if (parent.childNodes.length) parent.appendChild(document.createTextNode(' \u00b7 '));
    parent.appendChild(document.createTextNode(label + ' '));
    var b = document.createElement('b');
    b.textContent = value;
    parent.appendChild(b);
  }
  function show(i) {
    if (!readout || i < 0 || i >= n) return;
    var q = reqs[i];
    readout.textContent = '';
    readout.setAttribute('data-request', String(i));
    part(readout, 'request', q.index + ' (' + q.entryId + ')');
    part(readout, 'model', q.model);
    part(readout, 'main hit', q.hitRate !== null ? rate(q.hitRate) : (q.hasUsage ? 'no cache data' : 'no usage'));
    part(readout, 'prompt', tokens(q.prompt));
    if (q.nestedHitRate !== null) part(readout, 'nested hit', rate(q.nestedHitRate));
    part(readout, 'tokens so far', tokens(total(q.cumulative)));
    part(readout, 'cost so far', usd(q.cumulativeCost));
    if (q['break'] !== null) part(readout, 'break', q['break']);
    for (var b = 0; b < bands.length; b++) {
      var on = Number(bands[b].getAttribute('data-request')) === i;
      bands[b].setAttribute('class', on ? 'band hot' : 'band');
    }
  }
  function open(i) {
    var d = document.getElementById('req-' + i);
    if (!d) return;
    d.open = true;
    d.classList.add('flash');
    setTimeout(function () { d.classList.remove('flash'); }, 1200);
    if (d.scrollIntoView) d.scrollIntoView({ block: 'center' });
  }

  hitChart();
  cumulativeChart();
  bands.forEach(function (b) {
    var i = Number(b.getAttribute('data-request'));
    b.addEventListener('mouseenter', function () { show(i); });
    b.addEventListener('click', function () { open(i); });
  });
  Array.prototype.forEach.call(document.querySelectorAll('a[data-request]'), function (a) {
    a.addEventListener('click', function () { open(Number(a.getAttribute('data-request'))); });
  });
  Array.prototype.forEach.call(document.querySelectorAll('details.req'), function (d) {
    d.addEventListener('toggle', function () { if (d.open) show(Number(d.getAttribute('data-request'))); });
  });
  var m = /^#req-(\d+)$/.exec(window.location.hash);
  if (m) open(Number(m[1]));
  show(n - 1);
  if (document.body.getAttribute('data-status') !== 'error') document.body.setAttribute('data-status', 'ready');
})();
