within Workbench.Electrical;
model Ground "Zero potential reference"
  Workbench.Interfaces.Pin p annotation(Placement(transformation(extent = {{-10, 90}, {10, 110}})));
equation
  p.v = 0;
  annotation(Icon(coordinateSystem(extent = {{-100, -100}, {100, 100}}), graphics = {Line(points = {{-60, 50}, {60, 50}})}));
end Ground;
