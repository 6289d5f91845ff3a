/* graphdr map page, its data (written for graphdr, BSD-3-Clause; no network): the JSON facts
 * of <script id="graphdr-data"> and the arrays of <script id="graphdr-blob">, one zlib stream
 * in base64 (graphdr.maps.views.page_data), unpacked with the browser's DecompressionStream; then
 * ready(data), with each section of data.blob a typed array (or, for texts, a list). */
  function unpack(ready) {
    var data = JSON.parse(document.getElementById('graphdr-data').textContent);
    if (!window.DecompressionStream || !window.Response || !Blob.prototype.stream) {
      fail('This browser cannot unpack the map: it lacks DecompressionStream (Chrome or ' +
           'Edge 80, Firefox 113, Safari 16.4 or later have it).');
      return;
    }
    var bin = atob(document.getElementById('graphdr-blob').textContent.trim());
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    bin = null;
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
    new Response(stream).arrayBuffer().then(function (buf) {
      var types = {f4: Float32Array, u1: Uint8Array, u2: Uint16Array, u4: Uint32Array};
      Object.keys(data.blob).forEach(function (name) {
        var s = data.blob[name], piece = buf.slice(s[0], s[0] + s[1]);
        data[name] = s[2] === 'json' ? JSON.parse(new TextDecoder().decode(piece)) :
          new types[s[2]](piece);
      });
      ready(data);
    }).catch(function (e) { fail('The map could not be unpacked: ' + e); });
  }
  function fail(text) {
    var p = document.createElement('p');
    p.className = 'honest'; p.id = 'unpack-error'; p.textContent = text;
    document.body.insertBefore(p, document.body.firstChild);
  }
