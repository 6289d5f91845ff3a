/* graphdr map page: draws a 2-D map of labelled samples (WebGL, else a 2-D canvas), with pan,
 * zoom, hover, search and a class legend. Written for graphdr (BSD-3-Clause); no network, no
 * dependencies. The data (map_data.js unpacks them): coordinates and class codes as
 * Float32/Uint16 arrays, class names and colours, ids and hover columns (lists of text);
 * optionally the samples whose label the data contradicts (a Uint8 mask), ringed on a canvas
 * of their own. The page runs this file and map_workbench.js in one closure, once the data
 * are unpacked (page.py wraps them in a function); this file calls the workbench's dimmed(i),
 * fixedCode(i), labelText(i), drawWorkbench(), inspect(i) and reads its `tool`; the workbench
 * calls firstFrame() at its end. */
  // data: unpacked by map_data.js; ids and hover columns are in the rows' own order
  var X = data.x, Y = data.y, L = data.label, rows = data.rows, hoverColumns = data.hover || [];
  data.hover = {};
  data.hover_names.forEach(function (name, k) { data.hover[name] = hoverColumns[k]; });
  var n = X.length, C = data.classes.length;
  var visible = new Uint8Array(C).fill(1), marked = null;  // marked: points a search found
  var rgb = data.colors.map(function (h) {
    return [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)];
  });
  // an unlabelled sample given a class (T[i] < C - 1) is drawn in a light tint of its colour
  var T = data.tint || null;
  // samples whose label the data contradicts: ringed (the legend entry shows or hides the rings)
  var S = data.suspect || null, ringsOn = !!S, ringed = 0;
  var UNLABELLED_RGB = [204, 204, 204];
  var light = rgb.map(function (c) {
    return c.map(function (v) { return Math.round(v + data.tint_mix * (255 - v)); });
  });
  // samples are stored in a shuffled order (any prefix is a uniform subsample, drawn while the
  // view moves when the whole set is slow to draw); rows[i] is the sample's row in the data
  function idOf(i) { return data.ids ? data.ids[rows[i]] : String(rows[i]); }

  var wrap = document.getElementById('map'), canvas = document.getElementById('points');
  var overlay = document.getElementById('overlay'), tip = document.getElementById('tip');
  var octx = overlay.getContext('2d'), dpr = window.devicePixelRatio || 1;
  var ringCanvas = document.getElementById('rings'), rctx = ringCanvas.getContext('2d');

  // the view: data point (cx, cy) at the centre, `scale` CSS pixels per data unit
  var xmin = Infinity, xmax = -Infinity, ymin = Infinity, ymax = -Infinity;
  for (var i = 0; i < n; i++) {
    if (X[i] < xmin) xmin = X[i]; if (X[i] > xmax) xmax = X[i];
    if (Y[i] < ymin) ymin = Y[i]; if (Y[i] > ymax) ymax = Y[i];
  }
  if (!(xmax > xmin)) { xmin -= 1; xmax += 1; }
  if (!(ymax > ymin)) { ymin -= 1; ymax += 1; }
  var view = {cx: 0, cy: 0, scale: 1}, W = 0, H = 0;
  function home() {
    view.cx = (xmin + xmax) / 2; view.cy = (ymin + ymax) / 2;
    view.scale = 0.92 * Math.min(W / (xmax - xmin), H / (ymax - ymin));
  }
  function toScreen(x, y) { return [W / 2 + (x - view.cx) * view.scale, H / 2 - (y - view.cy) * view.scale]; }
  function toData(px, py) { return [view.cx + (px - W / 2) / view.scale, view.cy - (py - H / 2) / view.scale]; }
  function pointSize() {  // CSS pixels: larger for few points, growing slowly with zoom
    var base = Math.max(1.5, Math.min(8, 260 / Math.sqrt(n)));
    var zoom = view.scale / (0.92 * Math.min(W / (xmax - xmin), H / (ymax - ymin)));
    return Math.min(base * Math.sqrt(Math.max(zoom, 1)), 24);
  }

  // a grid over the data for hover: points sorted by cell
  var G = Math.max(1, Math.min(1024, Math.ceil(Math.sqrt(n / 64))));  // (as page_data.page_grid)
  var gx = (xmax - xmin) / G * 1.000001, gy = (ymax - ymin) / G * 1.000001;
  var cellOf = new Int32Array(n), start = new Int32Array(G * G + 1), order = new Int32Array(n);
  for (i = 0; i < n; i++) {
    var c = Math.floor((Y[i] - ymin) / gy) * G + Math.floor((X[i] - xmin) / gx);
    cellOf[i] = c; start[c + 1]++;
  }
  for (i = 0; i < G * G; i++) start[i + 1] += start[i];
  var fill = start.slice(0, G * G);
  for (i = 0; i < n; i++) order[fill[cellOf[i]]++] = i;
  function nearest(px, py, radius) {  // the nearest shown point within radius CSS pixels
    var p = toData(px, py), r = radius / view.scale, best = -1, bd = r * r;
    var i0 = Math.max(0, Math.floor((p[0] - r - xmin) / gx)), i1 = Math.min(G - 1, Math.floor((p[0] + r - xmin) / gx));
    var j0 = Math.max(0, Math.floor((p[1] - r - ymin) / gy)), j1 = Math.min(G - 1, Math.floor((p[1] + r - ymin) / gy));
    for (var j = j0; j <= j1; j++) for (var k = i0; k <= i1; k++) {
      var cell = j * G + k;
      for (var t = start[cell]; t < start[cell + 1]; t++) {
        var q = order[t];
        if (!colors[4 * q + 3]) continue;  // a hidden class
        var dx = X[q] - p[0], dy = Y[q] - p[1], d = dx * dx + dy * dy;
        if (d <= bd) { bd = d; best = q; }
      }
    }
    return best;
  }

  // drawing: WebGL when the browser has it, else a 2-D canvas
  var gl = null, prog, colorBuf, colors = new Uint8Array(4 * n), renderer = '2d';
  function setColors() {
    for (var i = 0; i < n; i++) {
      var f = fixedCode(i), k = f >= 0 ? f : L[i], c = rgb[k], a = visible[k] ? 255 : 0;
      if (f === -2) c = UNLABELLED_RGB;  // a label removed on this page
      else if (T && T[i] < C - 1 && f < 0) { c = light[T[i]]; if (!visible[T[i]]) a = 0; }
      if (a && ((marked && !marked[i]) || dimmed(i))) a = 40;
      colors[4 * i] = c[0]; colors[4 * i + 1] = c[1]; colors[4 * i + 2] = c[2]; colors[4 * i + 3] = a;
    }
    if (gl) { gl.bindBuffer(gl.ARRAY_BUFFER, colorBuf); gl.bufferData(gl.ARRAY_BUFFER, colors, gl.STATIC_DRAW); }
  }
  try {  // '#canvas2d' at the end of the address asks for the 2-D canvas
    if (window.location.hash.indexOf('canvas2d') < 0) gl = canvas.getContext('webgl', {antialias: true, premultipliedAlpha: false, preserveDrawingBuffer: false});
  } catch (e) { gl = null; }
  if (gl) {
    var vs = 'attribute vec2 p; attribute vec4 c; uniform vec2 centre; uniform vec2 k; uniform float size;' +
      'varying vec4 v; void main() { gl_Position = vec4((p - centre) * k, 0.0, 1.0);' +
      'gl_PointSize = size; v = c; }';
    var fs = 'precision mediump float; varying vec4 v; void main() {' +
      'vec2 d = gl_PointCoord - vec2(0.5); if (v.a == 0.0 || dot(d, d) > 0.25) discard;' +
      'gl_FragColor = vec4(v.rgb, v.a); }';
    var shader = function (type, src) {
      var s = gl.createShader(type); gl.shaderSource(s, src); gl.compileShader(s);
      if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
      return s;
    };
    try {
      prog = gl.createProgram();
      gl.attachShader(prog, shader(gl.VERTEX_SHADER, vs));
      gl.attachShader(prog, shader(gl.FRAGMENT_SHADER, fs));
      gl.linkProgram(prog);
      if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(prog));
      gl.useProgram(prog);
      var xy = new Float32Array(2 * n);
      for (i = 0; i < n; i++) { xy[2 * i] = X[i]; xy[2 * i + 1] = Y[i]; }
      var posBuf = gl.createBuffer();
      gl.bindBuffer(gl.ARRAY_BUFFER, posBuf); gl.bufferData(gl.ARRAY_BUFFER, xy, gl.STATIC_DRAW);
      var lp = gl.getAttribLocation(prog, 'p'); gl.enableVertexAttribArray(lp);
      gl.vertexAttribPointer(lp, 2, gl.FLOAT, false, 0, 0);
      colorBuf = gl.createBuffer();
      gl.bindBuffer(gl.ARRAY_BUFFER, colorBuf);
      var lc = gl.getAttribLocation(prog, 'c'); gl.enableVertexAttribArray(lc);
      gl.vertexAttribPointer(lc, 4, gl.UNSIGNED_BYTE, true, 0, 0);
      gl.enable(gl.BLEND); gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
      renderer = 'webgl';
    } catch (e) { gl = null; }
  }
  var ctx = gl ? null : canvas.getContext('2d');

  var hovered = -1, pinned = -1, pending = false, pointsDirty = true, moving = false;
  var fullMs = 0, fullDraws = 0, settle = null;
  function draw() {
    pending = false;
    var s = pointSize();
    if (pointsDirty) { drawPoints(s); pointsDirty = false; }
    drawOverlay(s);
  }
  function drawPoints(s) {
    // while the view moves, as many points as draw in about 30 ms; all of them once it rests
    var m = n, t0 = performance.now();
    if (moving && fullMs > 30) m = Math.max(20000, Math.min(n, Math.floor(n * 30 / fullMs)));
    if (gl) {
      gl.viewport(0, 0, canvas.width, canvas.height);
      gl.clearColor(1, 1, 1, 1); gl.clear(gl.COLOR_BUFFER_BIT);
      gl.uniform2f(gl.getUniformLocation(prog, 'centre'), view.cx, view.cy);
      gl.uniform2f(gl.getUniformLocation(prog, 'k'), 2 * view.scale / W, 2 * view.scale / H);
      gl.uniform1f(gl.getUniformLocation(prog, 'size'), s * dpr);
      gl.drawArrays(gl.POINTS, 0, m);
      if (m === n) gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));  // wait: time it
    } else {
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, W, H);
      for (var i = 0; i < m; i++) {
        var a = colors[4 * i + 3]; if (!a) continue;
        var q = toScreen(X[i], Y[i]);
        if (q[0] < -s || q[1] < -s || q[0] > W + s || q[1] > H + s) continue;
        ctx.fillStyle = 'rgba(' + colors[4 * i] + ',' + colors[4 * i + 1] + ',' + colors[4 * i + 2] + ',' + (a / 255) + ')';
        ctx.fillRect(q[0] - s / 2, q[1] - s / 2, s, s);
      }
    }
    drawRings(s, m);
    if (m === n) { fullMs = performance.now() - t0; fullDraws++; }
  }
  function drawRings(s, m) {  // one path of circles round the shown suspect samples
    rctx.setTransform(dpr, 0, 0, dpr, 0, 0); rctx.clearRect(0, 0, W, H); ringed = 0;
    if (!S || !ringsOn) return;
    var r = Math.max(s, 4) / 2 + 2.5;
    rctx.beginPath();
    for (var i = 0; i < m; i++) {
      if (!S[i] || colors[4 * i + 3] < 255) continue;  // hidden, or dimmed by a search
      var q = toScreen(X[i], Y[i]);
      if (q[0] < -r || q[1] < -r || q[0] > W + r || q[1] > H + r) continue;
      rctx.moveTo(q[0] + r, q[1]); rctx.arc(q[0], q[1], r, 0, 2 * Math.PI); ringed++;
    }
    rctx.lineWidth = 1.6; rctx.strokeStyle = '#000'; rctx.stroke();
    drawMoved(r, m);
  }
  // redraw(true): the points changed (view, colours); redraw(): only the overlay
  function redraw(points) {
    if (points) pointsDirty = true;
    if (!pending) { pending = true; window.requestAnimationFrame(draw); }
  }
  function moved() {  // the view changed: a quick frame now, every point once it rests
    moving = true; redraw(true);
    if (settle) window.clearTimeout(settle);
    settle = window.setTimeout(function () { moving = false; redraw(true); }, 200);
  }
  function drawOverlay(s) {
    octx.setTransform(dpr, 0, 0, dpr, 0, 0); octx.clearRect(0, 0, W, H);
    // class names at their regions, largest classes first, none over another
    octx.font = 'bold 13px sans-serif'; octx.textAlign = 'center'; octx.textBaseline = 'middle';
    octx.lineJoin = 'round'; var boxes = [];
    data.label_order.forEach(function (c) {
      if (!visible[c] || !data.centers[c]) return;
      var q = toScreen(data.centers[c][0], data.centers[c][1]), name = data.classes[c];
      var w = octx.measureText(name).width + 6, h = 17, b = [q[0] - w / 2, q[1] - h / 2, w, h];
      if (q[0] < 0 || q[1] < 0 || q[0] > W || q[1] > H) return;
      for (var k = 0; k < boxes.length; k++) {
        var o = boxes[k];
        if (b[0] < o[0] + o[2] && o[0] < b[0] + b[2] && b[1] < o[1] + o[3] && o[1] < b[1] + b[3]) return;
      }
      boxes.push(b);
      octx.lineWidth = 4; octx.strokeStyle = 'rgba(255,255,255,0.9)'; octx.strokeText(name, q[0], q[1]);
      octx.fillStyle = '#111'; octx.fillText(name, q[0], q[1]);
    });
    drawWorkbench(s);
    var shown = pinned >= 0 ? pinned : hovered;
    if (shown >= 0) {
      var q = toScreen(X[shown], Y[shown]);
      octx.lineWidth = 2; octx.strokeStyle = '#000';
      octx.beginPath(); octx.arc(q[0], q[1], Math.max(s, 6) / 2 + 3, 0, 2 * Math.PI); octx.stroke();
    }
  }
  function resize() {  // the same part of the map stays in view when the map's box changes
    var w = W, h = H;
    W = wrap.clientWidth; H = wrap.clientHeight;
    if (w > 0 && h > 0 && W > 0 && H > 0) view.scale *= Math.min(W / w, H / h);
    [canvas, ringCanvas, overlay].forEach(function (cv) { cv.width = Math.round(W * dpr); cv.height = Math.round(H * dpr); });
    moved();  // (a quick frame now, as while panning: the panel opening does not wait for every point)
  }

  function escapeHtml(t) {
    return String(t).replace(/[&<>"]/g, function (ch) { return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[ch]; });
  }
  function showTip(i, px, py) {
    if (i < 0) { tip.hidden = true; return; }
    var lines = [[data.id_name || 'id', idOf(i)], [data.label_name, labelText(i)]];
    if (S && S[i]) lines.push([data.suspect_name, 'yes: the data contradicts this label']);
    data.hover_names.forEach(function (name) { lines.push([name, data.hover[name][rows[i]]]); });
    tip.innerHTML = '<table>' + lines.map(function (r) {
      return '<tr><th>' + escapeHtml(r[0]) + '</th><td>' + escapeHtml(r[1]) + '</td></tr>';
    }).join('') + '</table>';
    tip.hidden = false;
    var left = Math.min(px + 14, W - tip.offsetWidth - 4), top = Math.min(py + 14, H - tip.offsetHeight - 4);
    tip.style.left = Math.max(0, left) + 'px'; tip.style.top = Math.max(0, top) + 'px';
    tip.dataset.index = String(i);
  }

  // pan, zoom, hover
  var drag = null;
  overlay.addEventListener('mousedown', function (e) {
    if (tool === 'pan') drag = [e.offsetX, e.offsetY, view.cx, view.cy, false];
  });
  window.addEventListener('mouseup', function () { drag = null; });
  overlay.addEventListener('mousemove', function (e) {
    if (tool !== 'pan' && (e.buttons & 1)) return;  // a lasso or a box being drawn
    if (drag && (e.buttons & 1)) {
      if (Math.abs(e.offsetX - drag[0]) + Math.abs(e.offsetY - drag[1]) > 2) drag[4] = true;
      view.cx = drag[2] - (e.offsetX - drag[0]) / view.scale;
      view.cy = drag[3] + (e.offsetY - drag[1]) / view.scale;
      tip.hidden = true; moved(); return;
    }
    var i = nearest(e.offsetX, e.offsetY, Math.max(pointSize(), 8));
    if (pinned < 0) { hovered = i; showTip(i, e.offsetX, e.offsetY); redraw(); }
  });
  overlay.addEventListener('mouseleave', function () { if (pinned < 0) { hovered = -1; tip.hidden = true; redraw(); } });
  overlay.addEventListener('click', function (e) {
    if ((drag && drag[4]) || tool !== 'pan') return;
    pinned = -1; var i = nearest(e.offsetX, e.offsetY, Math.max(pointSize(), 8));
    hovered = i; showTip(i, e.offsetX, e.offsetY); inspect(i); redraw();
  });
  overlay.addEventListener('wheel', function (e) {
    e.preventDefault();
    var before = toData(e.offsetX, e.offsetY), f = Math.exp(-e.deltaY * (e.deltaMode ? 0.05 : 0.0015));
    view.scale = Math.max(1e-6, Math.min(view.scale * f, 1e9));
    var after = toData(e.offsetX, e.offsetY);
    view.cx += before[0] - after[0]; view.cy += before[1] - after[1];
    tip.hidden = true; moved();
  }, {passive: false});
  document.getElementById('reset').addEventListener('click', function () { home(); redraw(true); });

  // the legend: one toggle per class
  var legend = document.getElementById('legend'), items = [];
  data.classes.forEach(function (name, c) {
    var li = document.createElement('li'), sw = document.createElement('span');
    var label = document.createElement('span'), count = document.createElement('span');
    sw.className = 'sw'; sw.style.background = data.colors[c];
    label.className = 'name'; label.textContent = name;  // a long name is cut, its count never
    count.className = 'count'; count.textContent = '(' + data.counts[c] + ')';
    li.appendChild(sw); li.appendChild(label); li.appendChild(count);
    li.title = 'show or hide ' + name; li.dataset.cls = String(c);
    li.addEventListener('click', function () { visible[c] ^= 1; li.classList.toggle('off', !visible[c]); setColors(); redraw(true); });
    legend.appendChild(li); items.push(li);
  });
  var suspectItem = null;
  if (S) {  // the rings' own entry, after the classes: shows or hides the rings
    suspectItem = document.createElement('li');
    var ring = document.createElement('span'), sname = document.createElement('span');
    var scount = document.createElement('span');
    ring.className = 'sw ring'; sname.className = 'name'; sname.textContent = data.suspect_name;
    scount.className = 'count'; scount.textContent = '(' + data.suspect_total + ')';
    suspectItem.appendChild(ring); suspectItem.appendChild(sname); suspectItem.appendChild(scount);
    suspectItem.className = 'suspect'; suspectItem.id = 'suspect-entry';
    suspectItem.title = 'show or hide the rings round the samples whose label the data contradicts';
    suspectItem.addEventListener('click', function () {
      ringsOn = !ringsOn; suspectItem.classList.toggle('off', !ringsOn); redraw(true);
    });
    legend.appendChild(suspectItem);
  }
  function showAll(on) {
    visible.fill(on ? 1 : 0);
    items.forEach(function (li) { li.classList.toggle('off', !on); });
    setColors(); redraw(true);
  }
  document.getElementById('all').addEventListener('click', function () { showAll(true); });
  document.getElementById('none').addEventListener('click', function () { showAll(false); });

  // search: a class name first (what a labelled map is searched for most), then a sample id,
  // then every class whose name contains the text (any case; those that begin with it listed
  // first), then the ids that begin with it; 'id:7' and 'class:7' say which is meant; an empty search
  // brings back the whole map
  var search = document.getElementById('search'), found = document.getElementById('found');
  function show(c) { if (!visible[c]) { visible[c] = 1; items[c].classList.remove('off'); } }
  var CONTEXT = 50;  // a frame holds at least the samples this many nearest its centre
  function frame(points) {  // fit the view to these points, with a neighbourhood to judge by
    var x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    points.forEach(function (i) {
      if (X[i] < x0) x0 = X[i]; if (X[i] > x1) x1 = X[i];
      if (Y[i] < y0) y0 = Y[i]; if (Y[i] > y1) y1 = Y[i];
    });
    var cx = (x0 + x1) / 2, cy = (y0 + y1) / 2, span = Math.max(x1 - x0, y1 - y0);
    if (points.length < CONTEXT && n > points.length) {
      // a few points (a lone suspect, one id's samples): wide enough for the CONTEXT
      // samples nearest their centre, whatever class they are
      var d = new Float64Array(n);
      for (var j = 0; j < n; j++) d[j] = (X[j] - cx) * (X[j] - cx) + (Y[j] - cy) * (Y[j] - cy);
      d.sort();
      span = Math.max(span, 2 * Math.sqrt(d[Math.min(n, CONTEXT) - 1]));
    }
    span = Math.max(span, 1e-6 * (xmax - xmin + ymax - ymin));
    view.cx = cx; view.cy = cy;
    view.scale = 0.8 * Math.min(W, H) / span;
  }
  function runSearch() {
    var text = search.value.trim(), want = 'any';
    marked = null; pinned = -1; hovered = -1; tip.hidden = true;
    var m = /^(id|class)\s*:\s*(.*)$/i.exec(text);
    if (m) { want = m[1].toLowerCase(); text = m[2].trim(); }
    if (!text) { found.textContent = ''; home(); setColors(); redraw(true); return; }
    var lower = text.toLowerCase(), i, k;
    function markClasses(cs) {  // mark and frame the samples of the classes cs
      var inside = new Uint8Array(C), members = [];
      cs.forEach(function (c) { inside[c] = 1; show(c); });
      marked = new Uint8Array(n);
      for (i = 0; i < n; i++) if (inside[L[i]]) { marked[i] = 1; members.push(i); }
      if (members.length) frame(members);
      return members.length;
    }
    var cls = want === 'id' ? -1 : data.classes.findIndex(function (name) { return name.toLowerCase() === lower; });
    if (S && cls < 0 && want === 'any' && /^suspect( labels?|s)?$/.test(lower)) {
      var suspects = [];  // 'suspect': mark and frame the ringed samples
      marked = new Uint8Array(n);
      for (i = 0; i < n; i++) if (S[i]) { marked[i] = 1; suspects.push(i); show(L[i]); }
      if (suspects.length) frame(suspects);
      ringsOn = true; suspectItem.classList.remove('off');
      found.textContent = suspects.length ? suspects.length + ' ' + data.suspect_name + ' (ringed)' :
        'no ' + data.suspect_name;
      setColors(); redraw(true); return;
    }
    if (cls >= 0) {
      var count = markClasses([cls]);
      var alsoId = want === 'any' && (function () {
        for (var j = 0; j < n; j++) if (idOf(j) === text) return true; return false; })();
      found.textContent = count + ' samples of ' + data.classes[cls] +
        (alsoId ? ' (' + text + ' is also a sample id: search id:' + text + ')' : '');
      setColors(); redraw(true); return;
    }
    var exact = -1, prefixed = [];
    if (want !== 'class') {
      for (i = 0; i < n; i++) {
        var id = idOf(i);
        if (id === text) { exact = i; break; }
        if (id.lastIndexOf(text, 0) === 0) prefixed.push(i);
      }
    }
    if (exact < 0 && want !== 'id') {  // every class whose name contains it, prefixes first
      var starts = [], parts = [];
      data.classes.forEach(function (name, c) {
        var at = name.toLowerCase().indexOf(lower);
        if (at === 0) starts.push(c); else if (at > 0) parts.push(c);
      });
      var cs = starts.concat(parts);
      if (cs.length) {
        var total = markClasses(cs);
        found.textContent = total + ' samples of ' + (cs.length === 1 ? data.classes[cs[0]] :
          cs.length + ' classes: ' + cs.slice(0, 6).map(function (c) { return data.classes[c]; }).join(', ') +
          (cs.length > 6 ? ', ...' : ''));
        setColors(); redraw(true); return;
      }
    }
    if (want === 'class') { found.textContent = 'no class ' + JSON.stringify(text); setColors(); redraw(true); return; }
    if (exact < 0 && prefixed.length === 1) exact = prefixed[0];
    if (exact >= 0) {
      show(L[exact]);
      view.cx = X[exact]; view.cy = Y[exact];
      pinned = exact; setColors(); pointsDirty = true; draw();
      var q = toScreen(X[exact], Y[exact]); showTip(exact, q[0], q[1]);
      found.textContent = 'sample ' + idOf(exact) + ' (' + data.classes[L[exact]] + ')';
      return;
    }
    if (prefixed.length) {
      marked = new Uint8Array(n);
      prefixed.forEach(function (j) { marked[j] = 1; show(L[j]); });
      frame(prefixed);
      k = prefixed.length;
      found.textContent = k + ' samples whose id begins with ' + JSON.stringify(text);
    } else {
      found.textContent = 'no sample id or class ' + JSON.stringify(text);
    }
    setColors(); redraw(true);
  }
  search.addEventListener('change', runSearch);
  search.addEventListener('keydown', function (e) { if (e.key === 'Enter') runSearch(); });

  function firstFrame() {  // called by the workbench once its state exists: the first frame
    setColors();
    var ro = window.ResizeObserver ? new ResizeObserver(resize) : null;
    W = wrap.clientWidth; H = wrap.clientHeight; home();
    if (ro) ro.observe(wrap); else window.addEventListener('resize', resize);
    resize(); draw();
  }
  window.graphdrMap = {
    n: n, renderer: renderer, fullDrawMs: function () { return fullMs; },
    fullDraws: function () { return fullDraws; },
    screenPosition: function (i) {  // CSS pixels relative to the page
      var q = toScreen(X[i], Y[i]), r = overlay.getBoundingClientRect();
      return [r.left + window.scrollX + q[0], r.top + window.scrollY + q[1]];
    },
    indexOf: function (id) { for (var i = 0; i < n; i++) if (idOf(i) === String(id)) return i; return -1; },
    tipText: function () { return tip.hidden ? '' : tip.innerText; },
    suspects: function () { return S ? data.suspect_total : null; },
    ringsShown: function () { return ringsOn; }, ringedCount: function () { return ringed; },
    colorOf: function (i) { return Array.prototype.slice.call(colors, 4 * i, 4 * i + 4); }
  };

