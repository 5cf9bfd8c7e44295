// What a chat's link card shows when the page is shared from WeChat's in-app browser (or any app reading Open
// Graph): WeChat takes the document's title, the description meta and an og:image / itemprop image, or else the
// page's first large image. The published pages carry these in their HTML; the Vue pages set them once loaded.
function meta(attr, key, content) {
  let el = document.head.querySelector(`meta[${attr}="${key}"]`);
  if (!el) {
    el = document.createElement("meta");
    el.setAttribute(attr, key);
    document.head.appendChild(el);
  }
  el.setAttribute("content", content);
}

export function setShareCard({ title, description, image, url = location.href }) {
  document.title = title;
  meta("name", "description", description);
  meta("property", "og:type", "website");
  meta("property", "og:title", title);
  meta("property", "og:description", description);
  meta("property", "og:url", url);
  meta("itemprop", "name", title);
  meta("itemprop", "description", description);
  if (!image) return;
  meta("property", "og:image", image);
  meta("itemprop", "image", image);
  if (!document.getElementById("share-img")) {
    const box = document.createElement("div");
    box.id = "share-img";
    box.hidden = true;
    const img = document.createElement("img");
    img.src = image;
    img.alt = "";
    box.appendChild(img);
    document.body.insertBefore(box, document.body.firstChild);
  }
}

// The published poster of a tournament or one of its events (written by the publisher beside its pages).
export function posterUrl(tid, eid) {
  return `${location.origin}/t/${encodeURIComponent(tid)}/${eid ? `${encodeURIComponent(eid)}/` : ""}poster.png`;
}
