/* graphdr map page, the workbench (written for graphdr, BSD-3-Clause; no network, no
 * dependencies): select samples with a lasso or a box (shift adds, alt removes, Escape
 * clears), list them (sortable, paged), inspect a sample's nearest neighbours in the features
 * the map was fitted on, set or accept labels and download the fixes as CSV, download the
 * selection as CSV. It runs in the closure of map_page.js, after it, and uses its names (n, X,
 * Y, L, C, data, colors, marked, view, toScreen, toData, setColors, redraw, idOf, items,
 * escape-free DOM building only: every text goes in by textContent). */
  var tool = 'pan', sel = new Uint8Array(n), nSel = 0, shape = null, inspected = -1;
  var PAGE = 100, pageAt = 0, sortBy = -1, sortDir = 1, listed = [];
  // the neighbours in the features, NB_K a sample, coded on the hover grid (graphdr.maps.
  // page_data): a cell offset and a place in that cell, or an exception (its page position,
  // NO_ROW: a sample this page does not draw); distances one byte each on a log scale
  var NB_K = data.neighbours ? data.neighbours.k : 0, NO_ROW = 4294967295, nbFirst = null;
  if (NB_K) {  // each sample's first exception
    nbFirst = new Uint32Array(n + 1);
    for (i = 0; i < n; i++) {
      var e = 0;
      for (var t = 0; t < NB_K; t++) if (!data.nb_offset[t * n + i]) e++;
      nbFirst[i + 1] = nbFirst[i] + e;
    }
  }
  function neighbourOf(i, t) {  // the page index of sample i's t-th neighbour, -1: not drawn
    var b = data.nb_offset[t * n + i];
    if (!b) {
      var e = nbFirst[i];
      for (var u = 0; u < t; u++) if (!data.nb_offset[u * n + i]) e++;
      return data.nb_other[e] === NO_ROW ? -1 : data.nb_other[e];
    }
    var cx = cellOf[i] % G + (b & 15) - 8, cy = Math.floor(cellOf[i] / G) + (b >> 4) - 8;
    return order[start[cy * G + cx] + data.nb_slot[t * n + i] + 256 * data.nb_slot_high[t * n + i]];
  }
  function neighbourDistance(i, t) {
    var q = 0;
    for (var u = 0; u <= t; u++) q = (q + data.nb_distance[u * n + i]) & 255;
    return q ? data.neighbours.low * Math.exp((q - 1) / 254 * data.neighbours.span) : 0;
  }
  // label fixes made on this page: the new class of a sample (-1: none, -2: unlabelled)
  var fixTo = new Int32Array(n).fill(-1), fixOrder = [];
  var unlabelledEntry = data.unlabelled ? C - 1 : -1;
  var suggestion = data.suggestion ? data.hover[data.suggestion] : null;  // (rows' order)

  function fixedCode(i) { return fixTo[i]; }

  // where the features put each suspect (its place as a new sample, its label ignored):
  // a legend entry moves the suspects there, with a line from each to its fitted place
  var movedOn = false, movedAt = null;
  if (S && data.moved_x) {
    movedAt = new Int32Array(n).fill(-1);
    for (var s0 = 0, i0 = 0; i0 < n; i0++) if (S[i0]) movedAt[i0] = s0++;
  }
  function drawMoved(r, m) {  // on the rings' canvas, after the rings of the fitted places
    if (!movedOn || !movedAt) return;
    for (var i = 0; i < m; i++) {
      if (movedAt[i] < 0 || colors[4 * i + 3] === 0 || (pass && !pass[i])) continue;
      var a = toScreen(X[i], Y[i]), b = toScreen(data.moved_x[movedAt[i]], data.moved_y[movedAt[i]]);
      var c = rgb[fixTo[i] >= 0 ? fixTo[i] : L[i]];
      rctx.beginPath(); rctx.moveTo(a[0], a[1]); rctx.lineTo(b[0], b[1]);
      rctx.lineWidth = 1; rctx.strokeStyle = 'rgba(0,0,0,0.55)'; rctx.stroke();
      rctx.beginPath(); rctx.arc(b[0], b[1], r - 1, 0, 2 * Math.PI);
      rctx.fillStyle = 'rgb(' + c[0] + ',' + c[1] + ',' + c[2] + ')'; rctx.fill();
      rctx.lineWidth = 2; rctx.strokeStyle = '#000'; rctx.stroke();
    }
  }
  if (movedAt && suspectItem) {
    var movedItem = el('li', undefined, 'off'), arrow = el('span', '\u21b3', 'sw');
    movedItem.id = 'moved-entry';
    movedItem.appendChild(arrow); movedItem.appendChild(el('span', 'placed by their features', 'name'));
    movedItem.title = 'move the suspect samples to where their features place them (as new samples, ' +
      'their labels ignored), a line from each to its place on the map';
    movedItem.addEventListener('click', function () {
      movedOn = !movedOn; movedItem.classList.toggle('off', !movedOn); setColors(); redraw(true);
    });
    legend.appendChild(movedItem);
  }
  function dimmed(i) {
    return (pass && !pass[i]) || (nSel > 0 && !sel[i]) || (movedOn && S[i] === 1);
  }
  function originalLabel(i) { return L[i] === unlabelledEntry ? '' : data.classes[L[i]]; }
  function newLabel(i) { return fixTo[i] === -2 ? '' : data.classes[fixTo[i]]; }
  function labelText(i) {
    var was = data.classes[L[i]];
    if (fixTo[i] < 0 && fixTo[i] !== -2) return was;
    return was + ' \u2192 ' + (newLabel(i) || data.unlabelled_name) + ' (fixed on this page)';
  }
  function $(id) { return document.getElementById(id); }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  // tools: pan (drag), lasso, box; keys p, l, b
  function setTool(t) {
    tool = t;
    ['pan', 'lasso', 'box'].forEach(function (name) {
      $('tool-' + name).setAttribute('aria-pressed', String(name === t));
    });
    overlay.style.cursor = t === 'pan' ? 'crosshair' : 'cell';
  }
  ['pan', 'lasso', 'box'].forEach(function (name) {
    $('tool-' + name).addEventListener('click', function () { setTool(name); });
  });
  document.addEventListener('keydown', function (e) {
    var typing = /^(INPUT|SELECT|TEXTAREA)$/.test((e.target || {}).tagName || '');
    if (e.key === 'Escape') { shape = null; clearSelection(); return; }
    if (typing || e.ctrlKey || e.metaKey) return;
    var t = {p: 'pan', l: 'lasso', b: 'box'}[e.key];
    if (t) setTool(t);
    if (e.key === 'd') toggleContours();
  });

  // drawing the shape: its corners in data coordinates (a box: two corners)
  overlay.addEventListener('mousedown', function (e) {
    if (tool === 'pan' || e.button !== 0) return;
    e.preventDefault();
    shape = {kind: tool, mode: e.shiftKey ? 'add' : e.altKey ? 'remove' : 'replace',
             points: [toData(e.offsetX, e.offsetY)], last: [e.offsetX, e.offsetY]};
    tip.hidden = true;
  });
  overlay.addEventListener('mousemove', function (e) {
    if (!shape || !(e.buttons & 1)) return;
    var p = toData(e.offsetX, e.offsetY);
    if (shape.kind === 'box') { shape.points[1] = p; redraw(); return; }
    if (Math.abs(e.offsetX - shape.last[0]) + Math.abs(e.offsetY - shape.last[1]) < 3) return;
    shape.points.push(p); shape.last = [e.offsetX, e.offsetY]; redraw();
  });
  window.addEventListener('mouseup', function () {
    if (!shape) return;
    var s = shape; shape = null;
    var poly = s.points;
    if (s.kind === 'box' && poly.length === 2) {
      var a = poly[0], b = poly[1];
      poly = [[a[0], a[1]], [b[0], a[1]], [b[0], b[1]], [a[0], b[1]]];
    }
    if (poly.length < 3) { redraw(); return; }
    lastShape = poly;
    applySelection(pointsInside(poly), s.mode);
  });
  var lastShape = null;

  function eligible(i) {  // shown, kept by the filters, and not dimmed by a search
    return colors[4 * i + 3] > 0 && passes(i) && !(marked && !marked[i]);
  }
  // the samples inside a polygon of data coordinates, by the even-odd rule, in the order of
  // operations of graphdr.maps.views.select.points_inside (the same samples, to the bit)
  function pointsInside(poly) {
    var x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity, m = poly.length, i, j, k;
    var px = new Float64Array(m), py = new Float64Array(m);
    for (j = 0; j < m; j++) {
      px[j] = poly[j][0]; py[j] = poly[j][1];
      if (px[j] < x0) x0 = px[j]; if (px[j] > x1) x1 = px[j];
      if (py[j] < y0) y0 = py[j]; if (py[j] > y1) y1 = py[j];
    }
    var out = [];
    for (i = 0; i < n; i++) {
      var x = X[i], y = Y[i];
      if (x < x0 || x > x1 || y < y0 || y > y1) continue;
      var inside = false;
      for (j = 0; j < m; j++) {  // the edge from corner j to the next, as points_inside
        k = j + 1 === m ? 0 : j + 1;
        if (py[j] === py[k]) continue;
        if ((py[j] > y) !== (py[k] > y) &&
            x < px[j] + (y - py[j]) * (px[k] - px[j]) / (py[k] - py[j])) inside = !inside;
      }
      if (inside && eligible(i)) out.push(i);
    }
    return out;
  }
  function applySelection(found, mode) {
    if (mode === 'replace') { sel.fill(0); nSel = 0; }
    found.forEach(function (i) {
      var v = mode === 'remove' ? 0 : 1;
      if (sel[i] !== v) { sel[i] = v; nSel += v ? 1 : -1; }
    });
    listSelection();
    setColors(); moved();  // (a quick frame now, every point once the view rests)
  }
  function clearSelection() {
    sel.fill(0); nSel = 0; inspected = -1; listSelection(); setColors(); moved();
  }

  // the lasso or box being drawn, and the inspected sample's neighbours
  function drawWorkbench() {
    drawContours();
    if (shape && shape.points.length > 1) {
      var pts = shape.points;
      if (shape.kind === 'box') {
        var a = pts[0], b = pts[1]; pts = [a, [b[0], a[1]], b, [a[0], b[1]]];
      }
      octx.beginPath();
      pts.forEach(function (p, j) { var q = toScreen(p[0], p[1]); if (j) octx.lineTo(q[0], q[1]); else octx.moveTo(q[0], q[1]); });
      octx.closePath(); octx.lineWidth = 1.5; octx.setLineDash([5, 4]);
      octx.strokeStyle = shape.mode === 'remove' ? '#c00' : '#0a58ca'; octx.stroke();
      octx.fillStyle = 'rgba(10,88,202,0.06)'; octx.fill(); octx.setLineDash([]);
    }
    if (inspected >= 0 && NB_K) {
      var o = toScreen(X[inspected], Y[inspected]);
      octx.lineWidth = 1.2; octx.strokeStyle = 'rgba(0,0,0,0.7)';
      for (var t = 0; t < NB_K; t++) {
        var j = neighbourOf(inspected, t);
        if (j < 0) continue;
        var q = toScreen(X[j], Y[j]);
        octx.beginPath(); octx.moveTo(o[0], o[1]); octx.lineTo(q[0], q[1]); octx.stroke();
        octx.beginPath(); octx.arc(q[0], q[1], 5, 0, 2 * Math.PI); octx.stroke();
      }
    }
  }

  // each class's density contours (graphdr.maps.views.density): key D or the 'density' button
  var contoursOn = false, CL = data.contour_lines || new Uint32Array(0), CXY = data.contour_xy;
  function toggleContours() {
    contoursOn = !contoursOn; $('contours').setAttribute('aria-pressed', String(contoursOn)); redraw();
  }
  $('contours').addEventListener('click', toggleContours);
  if (!CL.length) $('contours').hidden = true;
  function drawContours() {
    if (!contoursOn) return;
    for (var l = 0; l < CL.length; l += 4) {
      var c = CL[l], level = CL[l + 1], s = CL[l + 2], m = CL[l + 3];
      if (!visible[c]) continue;
      octx.beginPath();
      for (var p = 0; p < m; p++) {
        var q = toScreen(CXY[2 * (s + p)], CXY[2 * (s + p) + 1]);
        if (p) octx.lineTo(q[0], q[1]); else octx.moveTo(q[0], q[1]);
      }
      octx.setLineDash(level ? [4, 3] : []); octx.lineWidth = level ? 1.2 : 2;
      octx.strokeStyle = data.colors[c]; octx.stroke();
    }
    octx.setLineDash([]);
  }

  // the panel: what is selected, its rows, the inspected sample's neighbours
  var panel = $('panel'), summary = $('sel-summary'), body = $('rows-body'), head = $('rows-head');
  function columns() {
    var cols = [{name: data.id_name || 'id', get: idOf},
                {name: data.label_name, get: function (i) { return data.classes[L[i]]; }}];
    if (fixOrder.length) {
      cols.push({name: 'new ' + data.label_name, get: function (i) {
        return fixTo[i] === -1 ? '' : (newLabel(i) || data.unlabelled_name); }});
    }
    data.hover_names.forEach(function (name) {
      cols.push({name: name, get: function (i) { return data.hover[name][rows[i]]; }});
    });
    return cols;
  }
  var NUMBER = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;
  function sortRows() {
    listed = [];
    for (var i = 0; i < n; i++) if (sel[i]) listed.push(i);
    var cols = columns();
    if (sortBy < 0 || sortBy >= cols.length) return;
    var get = cols[sortBy].get, keys = listed.map(get);
    var numeric = keys.every(function (v) { return v === '' || NUMBER.test(v); });
    var at = listed.map(function (_, j) { return j; });
    at.sort(function (p, q) {
      var a = keys[p], b = keys[q], d;
      if (numeric) {  // empty cells last whichever the direction
        if (a === '' || b === '') d = (a === '') - (b === '');
        else d = sortDir * (parseFloat(a) - parseFloat(b));
        if (a === '' || b === '') return d || p - q;
      } else d = sortDir * (a < b ? -1 : a > b ? 1 : 0);
      return d || p - q;
    });
    listed = at.map(function (j) { return listed[j]; });
  }
  function listSelection() {
    sortRows(); pageAt = 0; render();
  }
  function render() {
    var show = nSel > 0 || inspected >= 0;
    panel.hidden = !show; document.body.classList.toggle('working', show);
    summary.textContent = nSel ? describeSelection() : '';
    $('selection-tools').hidden = nSel === 0;
    var cols = columns();
    head.textContent = '';
    var tr = el('tr');
    cols.forEach(function (c, j) {
      var th = el('th', c.name + (j === sortBy ? (sortDir > 0 ? ' \u25b2' : ' \u25bc') : ''));
      th.title = 'sort by ' + c.name; th.dataset.col = String(j);
      th.addEventListener('click', function () {
        sortDir = sortBy === j ? -sortDir : 1; sortBy = j; pageAt = 0; sortRows(); render();
      });
      tr.appendChild(th);
    });
    head.appendChild(tr);
    body.textContent = '';
    var pages = Math.max(1, Math.ceil(listed.length / PAGE));
    pageAt = Math.min(pageAt, pages - 1);
    listed.slice(pageAt * PAGE, (pageAt + 1) * PAGE).forEach(function (i) {
      var row = el('tr'); row.dataset.index = String(i);
      cols.forEach(function (c) { row.appendChild(el('td', c.get(i))); });
      if (S && S[i]) row.className = 'suspect';
      row.addEventListener('click', function () { inspect(i); pinAt(i); });
      body.appendChild(row);
    });
    $('page-info').textContent = listed.length ? 'rows ' + (pageAt * PAGE + 1) + '\u2013' +
      Math.min(listed.length, (pageAt + 1) * PAGE) + ' of ' + listed.length : '';
    $('page-prev').disabled = pageAt === 0; $('page-next').disabled = pageAt >= pages - 1;
    $('fixes-csv').textContent = 'download label fixes (' + fixOrder.length + ')';
    $('fixes-csv').disabled = fixOrder.length === 0;
    renderNeighbours();
  }
  function describeSelection() {
    var per = {}, sus = 0;
    for (var t = 0; t < listed.length; t++) {
      var i = listed[t], name = data.classes[L[i]];
      per[name] = (per[name] || 0) + 1; if (S && S[i]) sus++;
    }
    var names = Object.keys(per).sort(function (a, b) { return per[b] - per[a] || (a < b ? -1 : 1); });
    var text = nSel + ' selected: ' + names.slice(0, 8).map(function (c) { return c + ' ' + per[c]; }).join(', ') +
      (names.length > 8 ? ', \u2026 (' + names.length + ' classes)' : '');
    if (S) text += ' \u00b7 ' + sus + ' suspect, ' + (nSel - sus) + ' not suspect';
    return text;
  }
  $('page-prev').addEventListener('click', function () { pageAt = Math.max(0, pageAt - 1); render(); });
  $('page-next').addEventListener('click', function () { pageAt++; render(); });
  $('sel-clear').addEventListener('click', clearSelection);

  function pinAt(i) {  // the sample's tooltip, the view moved to it if it is out of sight
    var q = toScreen(X[i], Y[i]);
    if (q[0] < 0 || q[1] < 0 || q[0] > W || q[1] > H) { view.cx = X[i]; view.cy = Y[i]; }
    pinned = i; hovered = i;
    pointsDirty = true; draw();
    q = toScreen(X[i], Y[i]); showTip(i, q[0], q[1]);
  }
  function inspect(i) {
    inspected = i; render(); redraw();
  }
  function renderNeighbours() {
    var box = $('neighbours');
    box.textContent = '';
    if (inspected < 0) return;
    if (!NB_K) {
      box.appendChild(el('p', 'Sample ' + idOf(inspected) + ': this page stores no neighbours in the features.'));
      return;
    }
    box.appendChild(el('p', 'The ' + NB_K + ' nearest samples of ' + idOf(inspected) + ' (' +
      labelText(inspected) + ') in the features the map was fitted on (' + data.neighbours.space +
      '), lines on the map:'));
    var table = el('table'), tr = el('tr');
    [data.id_name || 'id', data.label_name, 'distance'].forEach(function (h) { tr.appendChild(el('th', h)); });
    table.appendChild(tr);
    for (var t = 0; t < NB_K; t++) {
      var j = neighbourOf(inspected, t), d = neighbourDistance(inspected, t).toPrecision(2);
      var row = el('tr');
      if (j < 0) {
        row.appendChild(el('td', '(a sample this page does not draw)'));
        row.appendChild(el('td', '')); row.appendChild(el('td', d));
      } else {
        row.appendChild(el('td', idOf(j))); row.appendChild(el('td', labelText(j)));
        row.appendChild(el('td', d));
        if (L[j] !== L[inspected]) row.className = 'other';
        (function (j) { row.addEventListener('click', function () { inspect(j); pinAt(j); }); })(j);
      }
      table.appendChild(row);
    }
    box.appendChild(table);
  }

  // label fixes: set a class for the selected samples, or accept their suggested class
  var choice = $('fix-class');
  data.classes.forEach(function (name, c) {
    if (c === unlabelledEntry) return;
    var o = el('option', name); o.value = String(c); choice.appendChild(o);
  });
  var none = el('option', data.unlabelled_name + ' (no label)'); none.value = '-2'; choice.appendChild(none);
  function fix(i, code) {
    if (code === L[i] || (code === -2 && L[i] === unlabelledEntry)) code = -1;  // back to its label
    if (fixTo[i] === -1 && code !== -1) fixOrder.push(i);
    fixTo[i] = code;
    if (code === -1) fixOrder = fixOrder.filter(function (j) { return j !== i; });
  }
  function fixed() { sortRows(); render(); recount(); setColors(); moved(); }
  $('fix-set').addEventListener('click', function () {
    var code = parseInt(choice.value, 10);
    listed.forEach(function (i) { fix(i, code); }); fixed();
  });
  $('fix-accept').addEventListener('click', function () {
    listed.forEach(function (i) {
      var c = suggestion ? data.classes.indexOf(suggestion[rows[i]]) : -1;
      if (c >= 0 && c !== unlabelledEntry) fix(i, c);
    });
    fixed();
  });
  if (!data.fixable || !suggestion) $('fix-accept').hidden = true;
  if (!data.fixable) $('fix-tools').hidden = true;
  function shownCode(i) { return fixTo[i] >= 0 ? fixTo[i] : fixTo[i] === -2 ? unlabelledEntry : L[i]; }
  function recount() {  // the legend counts follow the fixes, and the filters: "(kept of all)"
    var counts = data.counts.slice(), kept = null;
    fixOrder.forEach(function (i) {
      counts[L[i]]--; if (fixTo[i] >= 0) counts[fixTo[i]]++;
      else if (unlabelledEntry >= 0) counts[unlabelledEntry]++;
    });
    if (pass) {
      kept = new Array(C).fill(0);
      for (var i = 0; i < n; i++) if (pass[i]) { var c = shownCode(i); if (c >= 0) kept[c]++; }
    }
    items.forEach(function (li, c) {
      li.querySelector('.count').textContent = '(' + (kept ? kept[c] + ' of ' : '') + counts[c] + ')';
    });
  }
  window.addEventListener('beforeunload', function (e) {
    if (fixOrder.length) { e.preventDefault(); e.returnValue = ''; }
  });

  // downloads: CSV whose text cells a spreadsheet never reads as a formula (graphdr's rule:
  // graphdr._outputs.spreadsheet_safe), quoted as Python's csv module quotes
  var FLOAT = /^\s*[+-]?((\d(_?\d)*(\.(\d(_?\d)*)?)?|\.\d(_?\d)*)([eE][+-]?\d(_?\d)*)?|inf(inity)?|nan)\s*$/i;
  var FORMULA = /^[=+\-@\t\r]/;
  function escaped(t) {
    while (t.charAt(0) === "'") { t = t.slice(1); if (!/^['=+\-@\t\r]/.test(t)) return false; }
    return FORMULA.test(t) && !FLOAT.test(t);
  }
  function safe(t) { t = String(t); return escaped(t) ? "'" + t : t; }
  function cell(t) {
    t = safe(t);
    return /[",\n\r]/.test(t) ? '"' + t.replace(/"/g, '""') + '"' : t;
  }
  function csvText(header, rowsOf) {
    var lines = [header.map(cell).join(',')];
    rowsOf(function (r) { lines.push(r.map(cell).join(',')); });
    return lines.join('\n') + '\n';
  }
  function download(name, text) {
    var a = el('a'), url = URL.createObjectURL(new Blob([text], {type: 'text/csv;charset=utf-8'}));
    a.href = url; a.download = name; document.body.appendChild(a); a.click();
    window.setTimeout(function () { URL.revokeObjectURL(url); a.remove(); }, 2000);
  }
  function selectionCsv() {
    var cols = columns();
    return csvText(cols.slice(0, 2).map(function (c) { return c.name; }).concat(['x', 'y'],
      cols.slice(2).map(function (c) { return c.name; })), function (add) {
      listed.forEach(function (i) {
        var v = cols.map(function (c) { return c.get(i); });
        add(v.slice(0, 2).concat([String(X[i]), String(Y[i])], v.slice(2)));
      });
    });
  }
  function fixesCsv() {
    return csvText(['id', 'old label', 'new label'], function (add) {
      fixOrder.forEach(function (i) { add([idOf(i), originalLabel(i), newLabel(i)]); });
    });
  }
  $('sel-csv').addEventListener('click', function () { download('graphdr-selection.csv', selectionCsv()); });
  $('fixes-csv').addEventListener('click', function () { download('graphdr-label-fixes.csv', fixesCsv()); });

  setTool('pan'); render();
  var api = window.graphdrMap;
  api.selected = function () { return listed.map(idOf); };
  api.selectedCount = function () { return nSel; };
  api.idAt = idOf;
  api.movedPlace = function (i) {  // where the features put suspect i, or null
    return movedAt && movedAt[i] >= 0 ? [data.moved_x[movedAt[i]], data.moved_y[movedAt[i]]] : null;
  };
  api.movedShown = function () { return movedOn; };
  api.contoursShown = function () { return contoursOn; };
  api.lastShape = function () { return lastShape; };
  api.toData = function (px, py) { return toData(px, py); };
  api.toScreen = function (x, y) {  // CSS pixels relative to the page
    var q = toScreen(x, y), r = overlay.getBoundingClientRect();
    return [r.left + window.scrollX + q[0], r.top + window.scrollY + q[1]];
  };
  api.csvCell = cell;
  api.inspected = function () { return inspected < 0 ? null : idOf(inspected); };
  api.neighbours = function (i) {  // [[id or null, distance], ...] of page index i
    var out = [];
    for (var t = 0; t < NB_K; t++) {
      var j = neighbourOf(i, t);
      out.push([j < 0 ? null : idOf(j), neighbourDistance(i, t)]);
    }
    return out;
  };
