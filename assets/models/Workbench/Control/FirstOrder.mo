within Workbench.Control;
block FirstOrder "First-order lag: T der(y) = k u - y"
  parameter Real k(unit = "1") = 1.0 "Gain";
  parameter Modelica.Units.SI.Time T = 0.5 "Time constant";
  parameter Real y_start = 0 "Output at start";
  input Real u(unit = "1") "Input" annotation(Placement(transformation(extent = {{-140, -20}, {-100, 20}})));
  output Real y(start = y_start, fixed = true, unit = "1") "Output"
    annotation(Placement(transformation(extent = {{100, -10}, {120, 10}})));
equation
  T * der(y) = k * u - y;
  annotation(Icon(coordinateSystem(extent = {{-100, -100}, {100, 100}}),
    graphics = {Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 127}), Text(extent = {{-90, 30}, {90, -30}}, textString = "k/(Ts+1)")}));
end FirstOrder;
