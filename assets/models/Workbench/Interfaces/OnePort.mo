within Workbench.Interfaces;
partial model OnePort "Two pins; current in p equals current out of n"
  Modelica.Units.SI.Voltage v "Voltage drop p - n";
  Modelica.Units.SI.Current i "Current from p to n";
  Pin p annotation(Placement(transformation(extent = {{-110, -10}, {-90, 10}})));
  Pin n annotation(Placement(transformation(extent = {{90, -10}, {110, 10}})));
equation
  v = p.v - n.v;
  0 = p.i + n.i;
  i = p.i;
end OnePort;
