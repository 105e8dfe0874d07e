within Workbench.Electrical;
model RCCircuit "Source charging a capacitor through a resistor (connect equations, flow variables)"
  parameter Modelica.Units.SI.Resistance R = 100.0 "Series resistance";
  parameter Modelica.Units.SI.Capacitance C = 0.01 "Capacitance";
  input Modelica.Units.SI.Voltage V_supply(start = 0) "Supply voltage" annotation(Placement(transformation(extent = {{-140, -20}, {-100, 20}})));
  output Modelica.Units.SI.Voltage v_cap "Capacitor voltage" annotation(Placement(transformation(extent = {{100, 10}, {120, 30}})));
  output Modelica.Units.SI.Current current "Charging current" annotation(Placement(transformation(extent = {{100, -30}, {120, -10}})));
  ConstantVoltage source(V_in = V_supply) annotation(Placement(transformation(extent = {{-70, -10}, {-50, 10}}, rotation = -90)));
  Resistor resistor(R = R) annotation(Placement(transformation(extent = {{-20, 30}, {0, 50}})));
  Capacitor capacitor(C = C) annotation(Placement(transformation(extent = {{30, -10}, {50, 10}}, rotation = -90)));
  Ground ground annotation(Placement(transformation(extent = {{-10, -60}, {10, -40}})));
equation
  connect(source.p, resistor.p);
  connect(resistor.n, capacitor.p);
  connect(capacitor.n, source.n);
  connect(source.n, ground.p);
  v_cap = capacitor.v;
  current = resistor.i;
  annotation(Icon(coordinateSystem(extent = {{-100, -100}, {100, 100}}),
    graphics = {Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 255}), Text(extent = {{-90, 20}, {90, -20}}, textString = "RC")}));
end RCCircuit;
