import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatImage, type ImageReference, parseImage } from "./image-reference.ts";
import { DIGEST } from "./overrides.fixtures.ts";

describe("parseImage / formatImage", () => {
  const cases: { name: string; image: string; want: ImageReference | undefined }[] = [
    { name: "bare repository", image: "nginx", want: { registry: "", repository: "nginx", tag: "", digest: "" } },
    { name: "repository and tag", image: "nginx:1.25", want: { registry: "", repository: "nginx", tag: "1.25", digest: "" } },
    { name: "a first segment without . or : is part of the repository", image: "library/nginx:1.25", want: { registry: "", repository: "library/nginx", tag: "1.25", digest: "" } },
    { name: "registry with a dot", image: "registry.k8s.io/kube-apiserver:v1.19.1", want: { registry: "registry.k8s.io", repository: "kube-apiserver", tag: "v1.19.1", digest: "" } },
    { name: "registry with a port and a nested repository", image: "fictional.registry.example:10443/karmada/controller:v1.0.0", want: { registry: "fictional.registry.example:10443", repository: "karmada/controller", tag: "v1.0.0", digest: "" } },
    { name: "localhost is a registry", image: "localhost/app", want: { registry: "localhost", repository: "app", tag: "", digest: "" } },
    { name: "host:port without a dot is a registry", image: "myhost:5000/app:1", want: { registry: "myhost:5000", repository: "app", tag: "1", digest: "" } },
    { name: "digest", image: `nginx@${DIGEST}`, want: { registry: "", repository: "nginx", tag: "", digest: DIGEST } },
    { name: "tag and digest are both kept", image: `nginx:1.25@${DIGEST}`, want: { registry: "", repository: "nginx", tag: "1.25", digest: DIGEST } },
    { name: "uppercase repository is invalid", image: "Nginx", want: undefined },
    { name: "empty string is invalid", image: "", want: undefined },
    { name: "empty tag is invalid", image: "nginx:", want: undefined },
    { name: "space is invalid", image: "nginx 1", want: undefined },
    { name: "short digest is invalid", image: "nginx@sha256:abc", want: undefined },
    { name: "empty repository after the registry is invalid", image: "registry.io/:1", want: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = parseImage(c.image);
      assert.deepEqual(got, c.want);
      if (got !== undefined) assert.equal(formatImage(got), c.image);
    });
  }
});
