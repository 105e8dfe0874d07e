within Workbench.Electrical;
model Capacitor "Ideal capacitor"
  extends Workbench.Interfaces.OnePort(v(start = 0, fixed = true));
  parameter Modelica.Units.SI.Capacitance C = 1.0 "Capacitance";
equation
  i = C * der(v);
  annotation(Icon(coordinateSystem(extent = {{-100, -100}, {100, 100}}), graphics = {Line(points = {{-10, 40}, {-10, -40}}), Line(points = {{10, 40}, {10, -40}})}));
end Capacitor;
