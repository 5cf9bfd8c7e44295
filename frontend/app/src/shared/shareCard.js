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
  if (!image) {   // results: no poster on the card
    document.head.querySelectorAll('meta[property="og:image"], meta[itemprop="image"]').forEach((el) => el.remove());
    document.getElementById("share-img")?.remove();
    return;
  }
  meta("property", "og:image", image);
  meta("itemprop", "image", image);
  // WeChat's older cards take the page's first image: it is there for them inside <noscript>, which a browser
  // running this script parses as text and never fetches (the poster may not be published yet: no 404)
  let box = document.getElementById("share-img");
  if (!box) {
    box = document.createElement("div");
    box.id = "share-img";
    box.hidden = true;
    document.body.insertBefore(box, document.body.firstChild);
  }
  const src = image.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");   // an <img> element would load
  box.innerHTML = `<noscript><img src="${src}" alt=""></noscript>`;
}

// The published poster of a tournament or one of its events (written by the publisher beside its pages).
export function posterUrl(tid, eid) {
  return `${location.origin}/t/${encodeURIComponent(tid)}/${eid ? `${encodeURIComponent(eid)}/` : ""}poster.png`;
}

// The link card of a tournament's app pages: the registration poster until an event starts, then its results
// (as the published pages' card does), linking to the published results in the page's language.
export function tournamentCard(d, { t, resultsUrl }) {
  const started = d.events.filter((e) => e.started);
  if (started.length) {
    setShareCard({ title: `${d.name} · ${t("tournament.results")}`, url: resultsUrl,
                   description: t("tournament.card_started", { events: started.slice(0, 4).map((e) => e.name).join(" · ") }) });
    return;
  }
  setShareCard({ title: d.name, image: posterUrl(d.id),
                 description: [d.starts_on, d.venue, d.events.slice(0, 4).map((e) => e.name).join("、")].filter(Boolean).join(" · ") });
}
