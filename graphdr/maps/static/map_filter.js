/* graphdr map page, the filters (written for graphdr, BSD-3-Clause; no network): one per hover
 * column (numbers: a range of two sliders; text: pick values, or type a part of them when
 * there are many), and the suspect labels; the samples a filter leaves out are dimmed, cannot
 * be selected, and the legend counts only the others. Runs in the closure of map_page.js and
 * map_workbench.js, after them; they read `pass` (null: no filter) through passes(i). */
  var pass = null, filters = [], FEW_VALUES = 40;
  function passes(i) { return !pass || pass[i] === 1; }
  var NUMBER_TEXT = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

  function numbersOf(values) {  // Float64Array (NaN: empty), or null when some text is no number
    var out = new Float64Array(values.length), any = false;
    for (var r = 0; r < values.length; r++) {
      var v = values[r];
      if (v === '') { out[r] = NaN; continue; }
      if (!NUMBER_TEXT.test(v)) return null;
      out[r] = parseFloat(v); any = true;
    }
    return any ? out : null;
  }
  function addFilter(name, values) {  // values: one text per row (the rows' order)
    var box = el('div', undefined, 'filter'), head = el('div', name, 'fname');
    box.appendChild(head);
    var f = {name: name, test: null};
    var numbers = numbersOf(values);
    if (numbers) {
      var lo = Infinity, hi = -Infinity;
      numbers.forEach(function (v) { if (v < lo) lo = v; if (v > hi) hi = v; });
      var a = el('input'), b = el('input'), said = el('div', '', 'range');
      [a, b].forEach(function (s, k) {
        s.type = 'range'; s.min = '0'; s.max = '1000'; s.value = k ? '1000' : '0';
        s.setAttribute('aria-label', name + (k ? ' at most' : ' at least'));
        s.addEventListener('input', update);
        box.appendChild(s);
      });
      box.appendChild(said);
      var at = function (s) { return lo + (hi - lo) * parseInt(s.value, 10) / 1000; };
      f.set = function (from, to) {  // (tests and keyboard: a range of values)
        a.value = String(Math.round(1000 * (from - lo) / ((hi - lo) || 1)));
        b.value = String(Math.round(1000 * (to - lo) / ((hi - lo) || 1))); update();
      };
      f.range = function () {  // the values kept: [from, to]
        return [Math.min(at(a), at(b)), Math.max(at(a), at(b))];
      };
      function update() {
        var x = Math.min(at(a), at(b)), y = Math.max(at(a), at(b)), whole = a.value === '0' && b.value === '1000';
        if (parseInt(a.value, 10) === 0) x = -Infinity;
        if (parseInt(b.value, 10) === 1000) y = Infinity;
        said.textContent = whole ? 'all' : (x === -Infinity ? lo : x).toPrecision(3) + ' \u2013 ' +
          (y === Infinity ? hi : y).toPrecision(3) + ' (empty cells left out)';
        f.test = whole ? null : function (r) { var v = numbers[r]; return v >= x && v <= y; };
        apply();
      }
      said.textContent = 'all';
    } else {
      var seen = {}, names = [];
      for (var r = 0; r < values.length; r++) if (!(values[r] in seen)) { seen[values[r]] = 1; names.push(values[r]); }
      names.sort();
      if (names.length <= FEW_VALUES) {
        var pick = el('select'); pick.multiple = true; pick.size = Math.min(names.length, 6);
        pick.setAttribute('aria-label', name + ': keep these values');
        names.forEach(function (v) { var o = el('option', v === '' ? '(empty)' : v); o.value = v; pick.appendChild(o); });
        pick.addEventListener('change', function () {
          var keep = {}, k = 0;
          Array.prototype.forEach.call(pick.selectedOptions, function (o) { keep[o.value] = 1; k++; });
          f.test = k ? function (r) { return values[r] in keep; } : null;
          apply();
        });
        f.set = function (kept) {
          Array.prototype.forEach.call(pick.options, function (o) { o.selected = kept.indexOf(o.value) >= 0; });
          pick.dispatchEvent(new Event('change'));
        };
        box.appendChild(pick);
      } else {
        var part = el('input'); part.type = 'search'; part.placeholder = 'contains';
        part.setAttribute('aria-label', name + ': keep values containing');
        part.addEventListener('input', function () {
          var t = part.value.toLowerCase();
          f.test = t ? function (r) { return values[r].toLowerCase().indexOf(t) >= 0; } : null;
          apply();
        });
        f.set = function (t) { part.value = t; part.dispatchEvent(new Event('input')); };
        box.appendChild(part);
      }
    }
    filters.push(f);
    $('filter-list').appendChild(box);
  }
  function apply() {  // the samples every filter keeps; dimmed others; the legend counts
    var active = filters.filter(function (f) { return f.test; });
    if (!active.length) pass = null;
    else {
      pass = pass || new Uint8Array(n);
      for (var i = 0; i < n; i++) {
        var r = rows[i], ok = 1;
        for (var k = 0; k < active.length && ok; k++) if (!active[k].test(r, i)) ok = 0;
        pass[i] = ok;
      }
    }
    if (pass && nSel) {  // a selection keeps only what the filters keep
      for (i = 0; i < n; i++) if (sel[i] && !pass[i]) { sel[i] = 0; nSel--; }
      listSelection();
    }
    $('filter-count').textContent = pass ? countKept() + ' of ' + n + ' shown' : '';
    recount(); setColors(); moved();  // (a quick frame now, every point once the view rests)
  }
  function countKept() { var c = 0; for (var i = 0; i < n; i++) c += pass[i]; return c; }

  // the controls are built when the filters are first opened (a number column of 10^6
  // texts takes a moment to read)
  var built = false;
  function buildFilters() {
    if (built) return;
    built = true;
    if (S) {  // the suspects: all, only them, or the others
      var sbox = el('div', undefined, 'filter'), pickS = el('select');
      sbox.appendChild(el('div', data.suspect_name, 'fname'));
      ['all', 'suspect only', 'not suspect'].forEach(function (v) { var o = el('option', v); o.value = v; pickS.appendChild(o); });
      pickS.setAttribute('aria-label', data.suspect_name);
      var fs = {name: data.suspect_name, test: null};
      pickS.addEventListener('change', function () {
        fs.test = pickS.value === 'all' ? null : pickS.value === 'suspect only' ?
          function (r, i) { return S[i] === 1; } : function (r, i) { return S[i] === 0; };
        apply();
      });
      fs.set = function (v) { pickS.value = v; pickS.dispatchEvent(new Event('change')); };
      sbox.appendChild(pickS); filters.push(fs); $('filter-list').appendChild(sbox);
    }
    data.hover_names.forEach(function (name) { addFilter(name, data.hover[name]); });
  }
  $('filters').addEventListener('toggle', buildFilters);
  $('filters').querySelector('summary').addEventListener('click', buildFilters);
  $('filter-clear').addEventListener('click', function () {
    filters.forEach(function (f) { f.test = null; });
    $('filter-list').querySelectorAll('select').forEach(function (s) {
      Array.prototype.forEach.call(s.options, function (o, k) { o.selected = !s.multiple && k === 0; });
    });
    $('filter-list').querySelectorAll('input[type=range]').forEach(function (s, k) { s.value = k % 2 ? '1000' : '0'; });
    $('filter-list').querySelectorAll('.range').forEach(function (s) { s.textContent = 'all'; });
    $('filter-list').querySelectorAll('input[type=search]').forEach(function (s) { s.value = ''; });
    apply();
  });
  if (!S && !data.hover_names.length) $('filters').hidden = true;
  window.graphdrMap.filter = function (name, a, b) {  // (tests, benchmarks: as the controls do)
    buildFilters();
    var f = filters.filter(function (f) { return f.name === name; })[0];
    if (!f) throw new Error('no filter ' + name);
    f.set(a, b);
    return pass ? countKept() : n;
  };
  window.graphdrMap.filterRange = function (name) {
    buildFilters();
    return filters.filter(function (f) { return f.name === name; })[0].range();
  };
