// Image references in the grammar Karmada's imageOverrider parses; pure.

/** An image reference split Karmada's way: [registry/]repository[:tag][@digest]. */
export interface ImageReference {
  registry: string;
  repository: string;
  tag: string;
  digest: string;
}

// The grammar of github.com/distribution/reference, which Karmada's image parser uses.
const ALNUM = "[a-z0-9]+";
const SEPARATOR = "(?:[._]|__|[-]+)";
const PATH_COMPONENT = `${ALNUM}(?:${SEPARATOR}${ALNUM})*`;
const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const HOST = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])`;
const DOMAIN = `${HOST}(?::[0-9]+)?`;
const NAME = `(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG_SOURCE = "[\\w][\\w.-]{0,127}";
const DIGEST_SOURCE = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG_SOURCE}))?(?:@(${DIGEST_SOURCE}))?$`);
/** A whole image tag. */
export const IMAGE_TAG = new RegExp(`^${TAG_SOURCE}$`);
/** A whole image digest (algorithm:hex). */
export const IMAGE_DIGEST = new RegExp(`^${DIGEST_SOURCE}$`);
const NAME_MAX = 255;

/** Parses an image; the first path segment is the registry when it has "." or ":" or is "localhost". */
export function parseImage(image: string): ImageReference | undefined {
  const m = REFERENCE.exec(image);
  if (m === null) return undefined;
  const name = m[1] ?? "";
  if (name.length > NAME_MAX) return undefined;
  const slash = name.indexOf("/");
  const first = slash < 0 ? "" : name.slice(0, slash);
  const isRegistry = slash >= 0 && (first.includes(".") || first.includes(":") || first === "localhost");
  return {
    registry: isRegistry ? first : "",
    repository: isRegistry ? name.slice(slash + 1) : name,
    tag: m[2] ?? "",
    digest: m[3] ?? "",
  };
}

/** The inverse of parseImage. */
export function formatImage(ref: ImageReference): string {
  const name = ref.registry === "" ? ref.repository : `${ref.registry}/${ref.repository}`;
  return name + (ref.tag === "" ? "" : `:${ref.tag}`) + (ref.digest === "" ? "" : `@${ref.digest}`);
}
