/** `value` whole when it fits in `max` characters, else cut so that it and `marker` make `max`. */
export function cutText(value: string, max: number, marker: string): string {
  return value.length <= max ? value : `${value.slice(0, max - marker.length)}${marker}`;
}
