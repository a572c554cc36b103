// A download: a Blob built in memory, handed over through an <a download>. What is downloaded (a
// figure, a stage's tensors) is made by the widget's part 'downloads' (downloads.js); a trained
// model's file by the training panel.

// anchorNode: where the temporary <a> goes (inside the widget's shadow root, so the click stays local).
export function download(blob, filename, anchorNode) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  const root = anchorNode && anchorNode.getRootNode ? anchorNode.getRootNode() : document;
  (root === document ? document.body : root).append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

export const safeName = (s) => String(s).replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || 'tensor';
