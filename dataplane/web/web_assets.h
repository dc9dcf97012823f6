// SPDX-License-Identifier: Apache-2.0
// The status page's assets (dataplane/web/assets/: HTML, JavaScript, CSS),
// compiled into the daemon by embed_assets.py: nothing is read from disk or
// fetched from a CDN at run time.
//
//   const WebAsset* a = FindWebAsset("/app.js");  // null: not an asset
#ifndef ZG_DATAPLANE_WEB_WEB_ASSETS_H_
#define ZG_DATAPLANE_WEB_WEB_ASSETS_H_

#include <cstddef>
#include <string_view>

namespace zg::dataplane {

struct WebAsset {
  const char* path;          // "/app.js"
  const char* content_type;  // "text/javascript; charset=utf-8"
  const char* data;
  size_t size;
};

const WebAsset* FindWebAsset(std::string_view path);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_WEB_WEB_ASSETS_H_
