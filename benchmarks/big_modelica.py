"""A generated Modelica model of many placed components and routed connections (benchmark input)."""

from __future__ import annotations


def big_model(n_components: int, n_connections: int, comment_every: int = 0) -> str:
    """``model Big``: a grid of resistors and capacitors of our library (each with a Placement),
    chained pin to pin by ``n_connections`` connects with Line annotations; ``comment_every`` adds
    a comment line every that many lines (0: none)."""
    kinds = ("Workbench.Electrical.Resistor", "Workbench.Electrical.Capacitor")
    lines = [f'model Big "generated: {n_components} components, {n_connections} connections"']
    cols = max(1, int(n_components ** 0.5))
    for k in range(n_components):
        x, y = (k % cols) * 40, -(k // cols) * 40
        param = "R" if k % 2 == 0 else "C"
        lines.append(f"  {kinds[k % 2]} c{k}({param} = {k % 7 + 1}) \"part {k}\" annotation(Placement("
                     f"transformation(extent = {{{{{x - 10}, {y - 10}}}, {{{x + 10}, {y + 10}}}}})));")
        if comment_every and k % comment_every == 0:
            lines.append(f"  // group {k // comment_every}")
    lines.append("equation")
    made = 0
    step = 1
    while made < n_connections:
        for k in range(n_components - step):
            if made >= n_connections:
                break
            a, b = k, k + step
            ax, ay = (a % cols) * 40 + 10, -(a // cols) * 40
            bx, by = (b % cols) * 40 - 10, -(b // cols) * 40
            pin_a, pin_b = ("n", "p") if step == 1 else ("p", "n")
            lines.append(f"  connect(c{a}.{pin_a}, c{b}.{pin_b}) annotation(Line(points = "
                         f"{{{{{ax}, {ay}}}, {{{(ax + bx) // 2}, {ay}}}, {{{(ax + bx) // 2}, {by}}}, {{{bx}, {by}}}}}, "
                         f"color = {{0, 0, 255}}));")
            made += 1
            if comment_every and made % comment_every == 0:
                lines.append("  // wires")
        step += 1
    lines.append("end Big;")
    return "\n".join(lines) + "\n"
