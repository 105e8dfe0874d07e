within Workbench.Electrical;
model RCLadder "N-stage RC low-pass ladder written with arrays and a for-loop"
  parameter Integer n = 4 "Number of stages";
  parameter Modelica.Units.SI.Resistance R = 10.0 "Stage resistance";
  parameter Modelica.Units.SI.Capacitance C = 0.01 "Stage capacitance";
  input Modelica.Units.SI.Voltage V_in "Input voltage" annotation(Placement(transformation(extent = {{-140, -20}, {-100, 20}})));
  output Modelica.Units.SI.Voltage v_out "Last stage voltage" annotation(Placement(transformation(extent = {{100, -10}, {120, 10}})));
  Modelica.Units.SI.Voltage v[n](each start = 0, each fixed = true) "Stage voltages";
protected
  Modelica.Units.SI.Current i[n + 1] "Currents into each node (i[n+1] = 0: open end)";
equation
  i[1] = (V_in - v[1]) / R;
  for k in 2:n loop
    i[k] = (v[k - 1] - v[k]) / R;
  end for;
  i[n + 1] = 0;
  for k in 1:n loop
    C * der(v[k]) = i[k] - i[k + 1];
  end for;
  v_out = v[n];
  annotation(Icon(coordinateSystem(extent = {{-100, -100}, {100, 100}}),
    graphics = {Rectangle(extent = {{-100, 100}, {100, -100}}, lineColor = {0, 0, 255}), Text(extent = {{-90, 20}, {90, -20}}, textString = "RC x n")}));
end RCLadder;
