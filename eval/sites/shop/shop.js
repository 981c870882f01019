// The demo shop's catalogue and cart, shared by every page. The cart lives in sessionStorage: one per tab, so every run starts empty.
export const PRODUCTS = [
  { id: "trail-runner-3", name: "Trail Runner 3 running shoes", price: 89 },
  { id: "trailhead-boots", name: "Trailhead hiking boots", price: 129 },
  { id: "trail-socks", name: "Trail socks (3 pack)", price: 15 },
  { id: "city-sneakers", name: "City sneakers", price: 59 },
  { id: "rain-shell", name: "Packable rain shell", price: 74 },
];

export function product(id) {
  return PRODUCTS.find((p) => p.id === id);
}

export function cart() {
  try {
    return JSON.parse(sessionStorage.getItem("demo-cart") || "[]");
  } catch {
    return [];
  }
}

export function addToCart(id) {
  const items = cart();
  items.push(id);
  sessionStorage.setItem("demo-cart", JSON.stringify(items));
}

export function clearCart() {
  sessionStorage.removeItem("demo-cart");
}

export function renderCartLink() {
  const link = document.getElementById("cart-link");
  if (link) link.textContent = `Cart (${cart().length})`;
}

export function money(n) {
  return `$${n.toFixed(2)}`;
}
